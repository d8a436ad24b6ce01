// `ecocompute estimate`: ΔE of a precision vs FP16 for a model size on a GPU/architecture and engine,
// from the dataset's curves and anchors, with its basis and uncertainty (never a measurement).
#include <iostream>

#include "cli/command.hpp"
#include "cli/exit_code.hpp"
#include "cli/commands/evidence_flags.hpp"
#include "data/engine_name.hpp"
#include "data/model_size.hpp"
#include "decide/estimate.hpp"

namespace ecocompute::cli {

Command make_estimate_command(CLI::App& root) {
  struct Options {
    double params_b = 0;
    decide::EstimateRequest request;
    EvidenceFlags evidence;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* app = root.add_subcommand("estimate", "Estimate whether a precision saves energy per token vs FP16, with a 95 % "
                                                  "interval for your card (the decision model; every figure labelled with its basis)");
  CLI::Option* size = app->add_option("--params-b,-N", o->params_b, "Model size in billions of parameters");
  app->add_option("--model,-m", o->request.model, "Model name to read the size from, e.g. Qwen2.5-14B");
  app->add_option("--q,--query", o->request.q, "Free-text question, e.g. \"13B on A100 int8 batch 32 ctx 8k\"");
  app->add_option("--gpu,-g", o->request.gpu, "GPU name, e.g. A100, RTX 4090, H200");
  app->add_option("--arch,-a", o->request.arch, "GPU architecture: turing, ampere, ada, hopper, blackwell");
  app->add_option("--precision,-p", o->request.precision, "NF4, INT8 or a GGUF type (Q4_K_M, Q8_0 …)")->capture_default_str();
  app->add_option("--batch", o->request.batch, "Batch size")->capture_default_str()->check(CLI::Range(1, data::kMaxBatch));
  app->add_option("--ctx,--context", o->request.context, "Context length")
      ->capture_default_str()
      ->check(CLI::Range(1, data::kMaxContext));
  app->add_flag("--allow-borrow", o->request.allow_borrow,
                "Answer for an architecture none of whose cards measured the precision (labelled borrowed, with the spread between architectures)");
  app->add_option("--engine,-e", o->request.engine, "Engine, in any case (default: the precision's usual engine)")
      ->transform([](std::string name) { return data::canonical_engine_name(name); });
  o->evidence.add_to(app);
  app->add_flag("--json", o->json, "Print the /v1/estimate JSON");
  return {app, [o, size] {
            if (size->count() > 0) o->request.params_b = o->params_b;
            auto evidence = o->evidence.load(decide::RowLoading::by_key_sessions_by_id);
            if (!evidence) return report_error(evidence.error());
            auto response = decide::estimate(o->request, *evidence);
            if (!response) return report_error(response.error());
            return print_answer(*response, o->json);
          }};
}

}  // namespace ecocompute::cli
