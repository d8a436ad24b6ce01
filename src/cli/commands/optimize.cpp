// `ecocompute optimize`: the best precision × batch × context for a model on a GPU under an objective
// and constraints (latency, memory, throughput, quality), with the Pareto front and the closest
// infeasible candidate.
#include <iostream>

#include "cli/command.hpp"
#include "cli/commands/evidence_flags.hpp"
#include "cli/exit_code.hpp"
#include "data/engine_name.hpp"
#include "decide/optimizer.hpp"

namespace ecocompute::cli {

Command make_optimize_command(CLI::App& root) {
  struct Options {
    decide::OptimizeRequest request;
    double params_b = 0, max_latency_ms = 0, max_vram_gb = 0, min_throughput = 0, max_delta_ppl_pct = 0, max_kld = 0;
    int batch = 1, context = 2048;
    std::string objective = "min_energy";
    EvidenceFlags evidence;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* app = root.add_subcommand("optimize", "Recommend a precision, batch and context under an objective and constraints "
                                                  "(estimated; see each candidate's basis)");
  CLI::Option* size = app->add_option("--params-b,-N", o->params_b, "Model size in billions of parameters");
  app->add_option("--model,-m", o->request.model, "Model name to read the size from");
  app->add_option("--gpu,-g", o->request.gpu, "GPU name (its datasheet drives the latency model)");
  app->add_option("--arch,-a", o->request.arch, "Architecture (its representative GPU is used)");
  app->add_option("--engine,-e", o->request.engine, "Engine, in any case (default: each precision's usual engine)")
      ->transform([](std::string name) { return data::canonical_engine_name(name); });
  app->add_option("--objective", o->objective, "min_energy, min_latency, max_throughput or min_vram")->capture_default_str();
  CLI::Option* latency = app->add_option("--max-latency-ms", o->max_latency_ms, "Longest time per generated token");
  CLI::Option* vram = app->add_option("--max-vram-gb", o->max_vram_gb, "Most GPU memory to use");
  CLI::Option* throughput = app->add_option("--min-throughput", o->min_throughput, "Fewest tokens/s over the batch");
  CLI::Option* ppl = app->add_option("--max-delta-ppl-pct", o->max_delta_ppl_pct,
                                     "Largest perplexity increase vs FP16 in % (e.g. 1: nothing worse than +1 %)");
  CLI::Option* kld = app->add_option("--max-kld", o->max_kld, "Largest KL divergence vs FP16");
  CLI::Option* batch = app->add_option("--batch", o->batch, "Pin the batch size");
  CLI::Option* context = app->add_option("--ctx,--context", o->context, "Pin the context length");
  app->add_flag("--allow-borrow", o->request.allow_borrow,
                "Score precisions no card of this architecture measured (labelled borrowed, with the spread between architectures)");
  app->add_option("--precisions", o->request.precisions, "Candidate precisions")->delimiter(',')->capture_default_str();
  app->add_option("--batches", o->request.batches, "Candidate batch sizes")->delimiter(',')->capture_default_str();
  app->add_option("--contexts", o->request.contexts, "Candidate context lengths")->delimiter(',')->capture_default_str();
  o->evidence.add_to(app);
  app->add_flag("--json", o->json, "Print the /v1/optimize JSON");
  return {app, [o, size, latency, vram, throughput, ppl, kld, batch, context] {
            auto set = [](CLI::Option* flag, double value, std::optional<double>& field) {
              if (flag->count() > 0) field = value;
            };
            if (size->count() > 0) o->request.params_b = o->params_b;
            set(latency, o->max_latency_ms, o->request.max_latency_ms);
            set(vram, o->max_vram_gb, o->request.max_vram_gb);
            set(throughput, o->min_throughput, o->request.min_throughput);
            set(ppl, o->max_delta_ppl_pct, o->request.max_delta_ppl_pct);
            set(kld, o->max_kld, o->request.max_kld);
            if (batch->count() > 0) o->request.batch = o->batch;
            if (context->count() > 0) o->request.context = o->context;
            auto objective = decide::parse_objective(o->objective);
            if (!objective) return report_error(objective.error());
            o->request.objective = *objective;
            auto evidence = o->evidence.load(decide::RowLoading::by_key_sessions_by_id);
            if (!evidence) return report_error(evidence.error());
            auto response = decide::optimize(o->request, *evidence);
            if (!response) return report_error(response.error());
            return print_answer(*response, o->json);
          }};
}

}  // namespace ecocompute::cli
