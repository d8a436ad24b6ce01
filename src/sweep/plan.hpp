// SweepPlan: what a sweep measures (models × batch lists, the experiment design every job shares, the
// GPUs), read from a JSON plan file and validated field by field. The design keys are experiment's
// (experiment/options_json.hpp): a plan job is an experiment design, not a command line.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "experiment/experiment.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::sweep {

/// One model of the plan: a GGUF file, or a synthetic shape its job writes first.
struct PlanModel {
  std::filesystem::path path;  ///< absolute (relative paths are read against the plan's folder); empty for synth
  std::string synth_arch;      ///< e.g. "llama3-8b"; empty for a file
  std::string synth_type = "f16";
  std::uint64_t synth_seed = 1;
};

struct SweepPlan {
  std::string name;
  std::vector<PlanModel> models;
  std::vector<std::vector<int>> batch_lists;  ///< each one job per model; default {{1}}
  /// The plan's design keys (every field but name, models, batches and gpus), as written: what the
  /// folder's plan copy records.
  Json design = Json::object();
  /// The same keys applied to the defaults: what every job measures, less its model, batch list,
  /// folder, cache and GPU (job_experiment sets those).
  experiment::ExperimentOptions settings;
  bool all_gpus = true;                       ///< "gpus": "all" (the default)
  std::vector<std::string> gpus;              ///< GPU UUIDs when not all
};

/// Parses and validates a plan document; every error names `source` and the field ("models[2].path").
/// `base_dir` is the folder relative model paths are read against.
Result<SweepPlan> parse_plan(const Json& document, std::string_view source, const std::filesystem::path& base_dir);

/// Reads a plan file (see docs/sweep.md).
Result<SweepPlan> read_plan(const std::filesystem::path& path);

/// The sweep folder's copy of the plan it was started with, as JSON (model paths absolute): a resume
/// with a different plan is refused.
Json plan_to_json(const SweepPlan& plan);

}  // namespace ecocompute::sweep
