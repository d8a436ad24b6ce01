// run_experiment: validate, prepare files, open the meter, run the protocol, probe quality, write reports.
#include "experiment/experiment.hpp"

#include <algorithm>
#include <chrono>
#include <map>

#include <fmt/chrono.h>
#include <fmt/format.h>

#include "engine/gguf_inspection.hpp"
#include "engine/llama_backend.hpp"
#include "engine/llama_engine.hpp"
#include "engine/model_probe.hpp"
#include "engine/quantization_cache.hpp"
#include "engine/weights_label.hpp"
#include "experiment/loaded_engines.hpp"
#include "experiment/quality_step.hpp"
#include "meter/gpu_info.hpp"
#include "meter/open_meter.hpp"
#include "protocol/runner.hpp"
#include "experiment/progress_bar.hpp"
#include "util/clock.hpp"
#include "util/log.hpp"

namespace ecocompute::experiment {
namespace {

report::WeightsKind weights_kind(const engine::GgufInspection& inspection) {
  if (inspection.weights_label == engine::weights_synthetic) return report::WeightsKind::synthetic;
  if (inspection.weights_label == engine::weights_trained_fixture) return report::WeightsKind::trained_fixture;
  return report::WeightsKind::real;
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

// Quantizes (or finds in the cache) every precision's file before the first window: quantization is
// CPU work that would otherwise heat the machine between trials.
Result<std::map<std::string, std::filesystem::path, std::less<>>> prepare_files(const protocol::ValidatedDesign& design,
                                                                              const ExperimentOptions& options) {
  engine::QuantizationCache cache(options.cache_dir.empty() ? engine::QuantizationCache::default_folder()
                                                            : options.cache_dir);
  const std::vector<std::string> names = design.design().precisions();
  std::map<std::string, std::filesystem::path, std::less<>> files;
  for (std::size_t i = 0; i < names.size(); ++i) {
    log::info("preparing {} from {}", names[i], design.design().model.string());
    auto prepared = cache.prepare(design.design().model, design.precision_types()[i], options.n_threads);
    if (!prepared) return Error{prepared.error().code(), "cannot prepare " + names[i], prepared.error()};
    log::info("{}: {} ({})", names[i], prepared->path.string(), engine::to_string(prepared->origin));
    files[names[i]] = prepared->path;
  }
  return files;
}

}  // namespace

std::vector<report::EnergyReport> ExperimentOutcome::written_reports() const {
  std::vector<report::EnergyReport> out;
  for (const WrittenReport& r : reports) {
    if (r.report) out.push_back(*r.report);
  }
  return out;
}

Result<ExperimentOutcome> run_experiment(const ExperimentOptions& options, const std::atomic<bool>* cancel) {
  auto design = protocol::validate(options.design);
  if (!design) return design.error();
  for (const std::string& w : design->warnings()) log::warn("{}", w);
  // Found now, not after the last window: a run whose reports cannot be written loses everything.
  if (auto out = prepare_out_dir(options.out_dir); !out) return out.error();

  auto inspection = engine::inspect_gguf(design->design().model);
  if (!inspection) return inspection.error();
  // llama.cpp aborts the process on some malformed files our header checks pass: it reads the file
  // first in a child, where an abort is only an error.
  if (auto loads = engine::check_model_loads(design->design().model, options.model_check_program); !loads) {
    return loads.error();
  }

  // A CPU-only llama.cpp build (or --n-gpu-layers 0) does its work on the CPU; reading a GPU's counter
  // then would measure a device that does none of it.
  const bool engine_on_gpu = engine::llama_build_info().gpu_offload && options.n_gpu_layers != 0;
  meter::MeterOptions meter_options;
  meter_options.use_gpu = engine_on_gpu;
  meter_options.gpu = options.gpu;
  meter_options.allow_shared = options.allow_shared;
  meter_options.allow_fallback = !options.require_energy;
  meter_options.nvml.correct_edges = design->design().correct_edges;
  auto meter = meter::open_meter(meter_options);
  if (!meter) return meter.error();
  if (options.require_energy && !(*meter)->measures_energy()) {
    return unexpected(ErrorCode::unavailable, "no energy source could be opened (--require-energy)");
  }
  log::info("energy source: {} ({})", (*meter)->source(), (*meter)->device());

  ReportContext context;
  context.run_id = utc_run_id();
  context.host = describe_host();
  context.cpu = cpu_model_name();
  context.sources = meter::describe_energy_sources(options.gpu);
  context.weights = weights_kind(*inspection);

  auto files = prepare_files(*design, options);
  if (!files) return files.error();

  engine::LoadOptions load;
  load.n_gpu_layers = options.n_gpu_layers;
  load.n_ctx = context_size(options);  // per sequence
  load.n_sequences = static_cast<std::uint32_t>(design->design().max_batch());
  load.n_threads = options.n_threads;
  // The engine runs on the GPU the meter reads: the same UUID, never "device 0".
  if (engine_on_gpu && context.sources.gpu) load.device_uuid = context.sources.gpu->uuid;
  LoadedEngines engines(std::move(*files), load, engine::open_llama_engine);

  protocol::Runner runner(*design, **meter, engines.provider(), *system_clock());
  ProgressBar bar(stderr, options.progress_bar && ProgressBar::is_terminal(stderr));
  runner.set_progress([&bar](const protocol::Progress& p) { bar.update(p); });
  runner.set_cancel_flag(cancel);
  auto run = runner.run();
  bar.finish();
  if (!run) return run.error();

  ExperimentOutcome outcome;
  outcome.run = std::move(*run);

  const bool cancelled = outcome.run.cancelled || (cancel != nullptr && cancel->load());
  if (context.weights == report::WeightsKind::synthetic) {
    log::info("synthetic weights: no quality probe (random weights have no meaningful perplexity)");
  } else if (!options.quality) {
    log::info("quality probe switched off (--no-quality)");
  } else {
    QualityOutcome probed = probe_run_quality(design->design(), engines, options.quality_text,
                                              options.quality_policy, cancelled, cancel);
    outcome.quality = std::move(probed.results);
    outcome.quality_failure = std::move(probed.failure);
  }
  context.quality = outcome.quality;

  auto written = write_run_reports(outcome.run, context, options.out_dir);
  if (!written) return written.error();
  outcome.reports = std::move(*written);
  outcome.run_summary = options.out_dir / "run.json";
  for (const WrittenReport& r : outcome.reports) {
    if (!r.failure.empty()) log::error("no report for {}: {}", r.label, r.failure);
  }
  return outcome;
}

}  // namespace ecocompute::experiment
