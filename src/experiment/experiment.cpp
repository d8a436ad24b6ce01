// run_experiment: validate, prepare files, open the meter, run the protocol, probe quality, write reports.
#include "experiment/experiment.hpp"

#include <algorithm>
#include <chrono>
#include <future>
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
#include "util/file_io.hpp"
#include "util/log.hpp"
#include "util/text_list.hpp"

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

// The sha256 of every precision's file, hashed once each and all at the same time, before the first
// window: the reports name them, and hashing them when the reports are written (once per batch level)
// took minutes at 8 B (45 GB of files, seven batch levels), time in which a run stopped by its caller's
// limit lost every report it had not yet written.
Result<std::map<std::string, std::string, std::less<>>> hash_files(
    const std::map<std::string, std::filesystem::path, std::less<>>& files) {
  std::vector<std::pair<std::string, std::future<Result<std::string>>>> pending;
  for (const auto& [precision, path] : files) {
    pending.emplace_back(precision, std::async(std::launch::async, [file = path] { return sha256_file(file); }));
  }
  std::map<std::string, std::string, std::less<>> hashes;
  for (auto& [precision, future] : pending) {
    Result<std::string> hashed = future.get();
    if (!hashed) return Error(hashed.error().code(), "cannot hash the file of " + precision, hashed.error());
    hashes.emplace(precision, std::move(*hashed));
  }
  return hashes;
}

// The command engine's programs, one per precision label, in the design's order.
Result<void> check_commands(const protocol::ValidatedDesign& design, const std::vector<engine::CommandSpec>& commands) {
  const std::vector<std::string> labels = design.design().precisions();
  if (!design.design().precision_labels) {
    return unexpected(ErrorCode::internal, "a command engine run needs a design with precision labels");
  }
  if (labels.size() != commands.size()) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("{} precision labels but {} commands", labels.size(), commands.size()));
  }
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] != commands[i].label) {
      return unexpected(ErrorCode::invalid_argument,
                        fmt::format("command {} is labelled '{}', the design's precision is '{}'", i + 1,
                                    commands[i].label, labels[i]));
    }
  }
  return {};
}

// The UUIDs of the GPUs the run uses and the meter reads: every GPU of a split, else the one GPU.
std::vector<std::string> run_gpu_uuids(const ReportContext& context) {
  std::vector<std::string> out;
  for (const meter::GpuInfo& gpu : context.sources.split_gpus) out.push_back(gpu.uuid);
  if (out.empty() && context.sources.gpu && !context.sources.gpu->uuid.empty()) out.push_back(context.sources.gpu->uuid);
  return out;
}

// Loads each precision by starting its program; the program runs on the GPU the meter reads.
LoadedEngines command_engines(const ExperimentOptions& options, const ReportContext& context,
                              const std::atomic<bool>* cancel) {
  std::map<std::string, engine::CommandSpec, std::less<>> specs;
  const std::string visible = join_commas(run_gpu_uuids(context));
  for (engine::CommandSpec spec : options.commands) {
    spec.cancel = cancel;
    if (options.commands_on_gpu && !visible.empty()) {
      spec.environment.emplace_back("ECOCOMPUTE_GPU_UUID", visible);
      spec.environment.emplace_back("CUDA_VISIBLE_DEVICES", visible);
    }
    specs.emplace(spec.label, std::move(spec));
  }
  std::map<std::string, std::filesystem::path, std::less<>> labels;
  for (const auto& [label, spec] : specs) labels.emplace(label, label);
  // The loader finds its program by the "file" LoadedEngines hands it: the precision label.
  return LoadedEngines(std::move(labels), engine::LoadOptions{},
                       [specs = std::move(specs)](const engine::LoadOptions& load) -> Result<std::unique_ptr<engine::Engine>> {
                         const auto spec = specs.find(load.model.string());
                         if (spec == specs.end()) {
                           return unexpected(ErrorCode::internal, "no command for " + load.model.string());
                         }
                         return engine::open_command_engine(spec->second);
                       });
}

// What the reports say of a command's weights and model: what its program declared. A program that
// names no model_sha256 is identified by the sha256 of its command line instead (docs/command-protocol.md).
void declare_commands(const ExperimentOptions& options, const LoadedEngines& engines, ReportContext& context) {
  std::string weights;
  for (const engine::CommandSpec& spec : options.commands) {
    const engine::Engine* loaded = engines.find(spec.label);
    const engine::Hello* hello = loaded != nullptr ? engine::command_declaration(*loaded) : nullptr;
    context.model_sha256[spec.label] =
        hello != nullptr && !hello->model_sha256.empty() ? hello->model_sha256 : sha256_hex(spec.command);
    // The baseline's declaration names the run's weights; a synthetic one anywhere makes them synthetic.
    if (hello != nullptr && (weights.empty() || hello->weights == "synthetic")) weights = hello->weights;
  }
  if (auto kind = report::parse_weights_kind(weights.empty() ? "real" : weights)) context.weights = *kind;
}

}  // namespace

std::vector<report::EnergyReport> ExperimentOutcome::written_reports() const {
  std::vector<report::EnergyReport> out;
  for (const WrittenReport& r : reports) {
    if (r.report) out.push_back(*r.report);
  }
  return out;
}

std::size_t ExperimentOutcome::failures() const {
  std::size_t count = run.count_failed();
  for (const WrittenReport& r : reports) count += r.failure.empty() ? 0 : 1;
  if (!quality_failure.empty()) ++count;
  return count;
}

Result<ExperimentOutcome> run_experiment(const ExperimentOptions& options, const std::atomic<bool>* cancel) {
  auto design = protocol::validate(options.design);
  if (!design) return design.error();
  for (const std::string& w : design->warnings()) log::warn("{}", w);
  // Found now, not after the last window: a run whose reports cannot be written loses everything.
  if (auto out = prepare_out_dir(options.out_dir); !out) return out.error();

  if (!options.gpus.empty() && !options.gpu.empty()) {
    return unexpected(ErrorCode::invalid_argument, "--gpu and --gpus name the GPUs twice: give one of them");
  }
  const bool commands = !options.commands.empty();
  if (commands) {
    if (auto matched = check_commands(*design, options.commands); !matched) return matched.error();
  }
  std::optional<engine::GgufInspection> inspection;
  if (!commands) {
    auto inspected = engine::inspect_gguf(design->design().model);
    if (!inspected) return inspected.error();
    inspection = std::move(*inspected);
    // llama.cpp aborts the process on some malformed files our header checks pass: it reads the file
    // first in a child, where an abort is only an error.
    if (auto loads = engine::check_model_loads(design->design().model, options.model_check_program); !loads) {
      return loads.error();
    }
  }

  // A CPU-only llama.cpp build (or --n-gpu-layers 0) does its work on the CPU; reading a GPU's counter
  // then would measure a device that does none of it.
  const bool engine_on_gpu = commands ? options.commands_on_gpu
                                      : engine::llama_build_info().gpu_offload && options.n_gpu_layers != 0;
  meter::MeterOptions meter_options;
  meter_options.use_gpu = engine_on_gpu;
  meter::name_gpus(meter_options, options.gpu, options.gpus);
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
  context.sources = meter::describe_energy_sources(meter_options.gpu_specs());
  if (inspection) context.weights = weights_kind(*inspection);

  std::map<std::string, std::filesystem::path, std::less<>> file_map;
  if (!commands) {
    auto files = prepare_files(*design, options);
    if (!files) return files.error();
    file_map = std::move(*files);
    auto hashes = hash_files(file_map);
    if (!hashes) return hashes.error();
    context.model_sha256 = std::move(*hashes);
  }

  engine::LoadOptions load;
  load.n_gpu_layers = options.n_gpu_layers;
  load.n_ctx = context_size(options);  // per sequence
  load.n_sequences = static_cast<std::uint32_t>(design->design().max_batch());
  load.n_threads = options.n_threads;
  // The engine runs on the GPUs the meter reads: the same UUIDs, never "device 0".
  if (engine_on_gpu) load.device_uuids = run_gpu_uuids(context);
  load.split_mode = options.split_mode;
  load.token_choice = options.token_choice;
  std::optional<LoadedEngines> loaded;
  if (commands) {
    loaded.emplace(command_engines(options, context, cancel));
  } else {
    loaded.emplace(std::move(file_map), load, engine::open_llama_engine);
  }
  LoadedEngines& engines = *loaded;

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
  if (commands) declare_commands(options, engines, context);
  if (commands) {
    log::info("no quality probe: a command engine returns no logits");
  } else if (context.weights == report::WeightsKind::synthetic) {
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
