// run_experiment: prepare files, open the meter, run the protocol, probe quality, write reports.
#include "report/experiment.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "engine/gguf_inspection.hpp"
#include "engine/llama_backend.hpp"
#include "engine/model_writer.hpp"
#include "engine/llama_engine.hpp"
#include "engine/precision.hpp"
#include "engine/quantization_cache.hpp"
#include "meter/gpu_info.hpp"
#include "meter/open_meter.hpp"
#include "protocol/clock.hpp"
#include "protocol/runner.hpp"
#include "quality/corpus.hpp"
#include "quality/quality_probe.hpp"
#include "report/progress_bar.hpp"
#include "util/log.hpp"

namespace ecocompute::report {
namespace {

// The runner owns the engines it is given and frees them when it returns; the quality probe must run
// on the very same loaded weights afterwards, so the runner gets a view and we keep the owner.
class BorrowedEngine final : public engine::Engine {
 public:
  explicit BorrowedEngine(std::shared_ptr<engine::Engine> owner) : e_(std::move(owner)) {}
  const engine::ModelInfo& model() const override { return e_->model(); }
  engine::EngineDescription describe() const override { return e_->describe(); }
  Result<std::vector<engine::Token>> tokenize(std::string_view text, bool add_bos) const override {
    return e_->tokenize(text, add_bos);
  }
  engine::Token bos() const override { return e_->bos(); }
  Result<void> reset() override { return e_->reset(); }
  Result<engine::WorkStats> prefill(std::span<const engine::Token> tokens) override { return e_->prefill(tokens); }
  Result<engine::WorkStats> decode(std::int64_t n_tokens) override { return e_->decode(n_tokens); }
  Result<void> evaluate(std::span<const engine::Token> tokens, const engine::LogitsSink& sink) override {
    return e_->evaluate(tokens, sink);
  }
  void synchronize() override { e_->synchronize(); }
  std::span<const engine::Token> last_generated() const override { return e_->last_generated(); }

 private:
  std::shared_ptr<engine::Engine> e_;
};

WeightsKind weights_kind(const engine::GgufInspection& inspection) {
  if (inspection.weights_label == engine::weights_synthetic) return WeightsKind::synthetic;
  if (inspection.weights_label == engine::weights_trained_fixture) return WeightsKind::trained_fixture;
  return WeightsKind::real;
}

std::string utc_run_id() {
  const auto now = std::chrono::time_point_cast<std::chrono::seconds>(std::chrono::system_clock::now());
  return fmt::format("{:%Y%m%dT%H%M%SZ}", now);
}

// The context must hold the longest prompt plus one iteration's tokens, and one quality window.
std::uint32_t context_size(const ExperimentOptions& options) {
  if (options.n_ctx > 0) return options.n_ctx;
  std::int64_t prompt = 128;  // the default prompt is ~10 tokens; leave room for a user's text
  for (std::int64_t length : options.design.prompt.lengths_tokens) prompt = std::max(prompt, length);
  std::int64_t needed = prompt + options.design.tokens_per_iteration;
  if (options.quality) needed = std::max<std::int64_t>(needed, options.quality_policy.seq_len);
  needed = (needed + 255) / 256 * 256;
  return static_cast<std::uint32_t>(std::max<std::int64_t>(needed, 512));
}

}  // namespace

Result<ExperimentOutcome> run_experiment(const ExperimentOptions& options, const std::atomic<bool>* cancel) {
  const protocol::Design& design = options.design;
  auto warnings = protocol::validate(design);
  if (!warnings) return warnings.error();
  for (const std::string& w : *warnings) log::warn("{}", w);

  // Every precision must be a known GGUF type before anything is loaded or quantized.
  std::vector<std::pair<std::string, engine::GgufType>> precisions;
  for (const std::string& name : design.precisions()) {
    auto type = engine::parse_gguf_type(name);
    if (!type) return Error{ErrorCode::invalid_argument, "precision '" + name + "'", type.error()};
    precisions.emplace_back(name, *type);
  }
  auto inspection = engine::inspect_gguf(design.model);
  if (!inspection) return inspection.error();
  const WeightsKind weights = weights_kind(*inspection);

  // A CPU-only llama.cpp build (or --n-gpu-layers 0) does its work on the CPU; reading a GPU's counter
  // then would measure a device that does none of it.
  const bool engine_on_gpu = engine::llama_build_info().gpu_offload && options.n_gpu_layers != 0;
  meter::MeterOptions meter_options;
  meter_options.use_gpu = engine_on_gpu;
  meter_options.gpu = options.gpu;
  meter_options.allow_shared = options.allow_shared;
  meter_options.allow_fallback = !options.require_energy;
  auto meter = meter::open_meter(meter_options);
  if (!meter) return meter.error();
  if (options.require_energy && !(*meter)->measures_energy()) {
    return unexpected(ErrorCode::unavailable, "no energy source could be opened (--require-energy)");
  }
  log::info("energy source: {} ({})", (*meter)->source(), (*meter)->device());

  RunContext context;
  context.run_id = utc_run_id();
  context.host = describe_host();
  context.cpu = cpu_model_name();
  context.sources = meter::describe_energy_sources(options.gpu);
  context.weights = weights;

  // Quantize (or find in the cache) every precision's file before the first window: quantization is
  // CPU work that would otherwise heat the machine between trials.
  engine::QuantizationCache cache(options.cache_dir.empty() ? engine::QuantizationCache::default_folder()
                                                            : options.cache_dir);
  std::map<std::string, std::filesystem::path, std::less<>> files;
  for (const auto& [name, type] : precisions) {
    log::info("preparing {} from {}", name, design.model.string());
    auto prepared = cache.prepare(design.model, type, options.n_threads);
    if (!prepared) return Error{prepared.error().code(), "cannot prepare " + name, prepared.error()};
    log::info("{}: {} ({})", name, prepared->path.string(), engine::to_string(prepared->origin));
    files[name] = prepared->path;
  }

  engine::LoadOptions load;
  load.n_gpu_layers = options.n_gpu_layers;
  load.n_ctx = context_size(options);
  load.n_threads = options.n_threads;
  // The engine runs on the GPU the meter reads: the same UUID, never "device 0".
  if (engine_on_gpu && context.sources.gpu) load.device_uuid = context.sources.gpu->uuid;

  std::map<std::string, std::shared_ptr<engine::Engine>, std::less<>> loaded;
  protocol::EngineProvider provider =
      [&](const protocol::Condition& condition) -> Result<std::unique_ptr<engine::Engine>> {
    auto found = loaded.find(condition.precision);
    if (found == loaded.end()) {
      engine::LoadOptions these = load;
      these.model = files.at(condition.precision);
      log::info("loading {} ({})", condition.precision, these.model.string());
      auto opened = engine::open_llama_engine(these);
      if (!opened) return opened.error();
      found = loaded.emplace(condition.precision, std::shared_ptr<engine::Engine>(std::move(*opened))).first;
    }
    return std::unique_ptr<engine::Engine>(std::make_unique<BorrowedEngine>(found->second));
  };

  protocol::SteadyClock clock;
  protocol::Runner runner(design, **meter, provider, clock);
  ProgressBar bar(stderr, options.progress_bar && ProgressBar::is_terminal(stderr));
  runner.set_progress([&bar](const protocol::Progress& p) { bar.update(p); });
  runner.set_cancel_flag(cancel);
  auto run = runner.run();
  bar.finish();
  if (!run) return run.error();

  ExperimentOutcome outcome;
  outcome.run = std::move(*run);

  // Quality outside every energy window, on the same loaded weights as measured.
  const bool cancelled = outcome.run.cancelled || (cancel != nullptr && cancel->load());
  if (weights == WeightsKind::synthetic) {
    log::info("synthetic weights: no quality probe (random weights have no meaningful perplexity)");
  } else if (!options.quality) {
    log::info("quality probe switched off (--no-quality)");
  } else if (cancelled) {
    outcome.quality_failure = "not run: the run was interrupted";
  } else if (!loaded.contains(design.baseline)) {
    outcome.quality_failure = "not run: the baseline " + design.baseline + " did not load";
  } else {
    auto corpus = quality::load_corpus_or_default(options.quality_text);
    if (!corpus) {
      outcome.quality_failure = corpus.error().describe();
    } else {
      std::vector<engine::Engine*> candidates;
      for (const std::string& name : design.candidates) {
        if (auto it = loaded.find(name); it != loaded.end()) candidates.push_back(it->second.get());
      }
      log::info("quality probe: {} ({} bytes) on {} and {} candidate(s)", corpus->info.name, corpus->info.bytes,
                design.baseline, candidates.size());
      quality::ProbeOptions probe_options;
      probe_options.is_cancelled = [cancel] { return cancel != nullptr && cancel->load(); };
      auto probed = quality::probe_quality(*loaded.at(design.baseline), candidates, *corpus,
                                           options.quality_policy, probe_options);
      if (probed) {
        outcome.quality = std::move(*probed);
      } else {
        outcome.quality_failure = probed.error().describe();
      }
    }
    if (!outcome.quality_failure.empty()) log::error("quality probe failed: {}", outcome.quality_failure);
  }
  context.quality = outcome.quality;

  auto written = write_run_reports(outcome.run, context, options.out_dir);
  if (!written) return written.error();
  outcome.reports = std::move(*written);
  outcome.run_summary = options.out_dir / "run.json";
  for (const WrittenReport& r : outcome.reports) {
    if (r.document) outcome.written_documents.push_back(*r.document);
    if (!r.failure.empty()) log::error("no report for {}: {}", r.label, r.failure);
  }
  return outcome;
}

}  // namespace ecocompute::report
