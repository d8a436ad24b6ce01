// SweepPlan: what a sweep measures (models × one batch list each, the precisions and the window
// settings every job shares, the GPUs), read from a JSON plan file and validated field by field.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::sweep {

/// One model of the plan: a GGUF file, or a synthetic shape that `ecocompute synth` writes first.
struct PlanModel {
  std::filesystem::path path;  ///< absolute (relative paths are read against the plan's folder); empty for synth
  std::string synth_arch;      ///< e.g. "llama3-8b"; empty for a file
  std::string synth_type = "f16";
  std::uint64_t synth_seed = 1;
};

/// Settings every job passes to `ecocompute measure`; an absent one keeps measure's own default.
struct PlanSettings {
  std::optional<std::string> baseline;
  std::vector<std::string> precisions;  ///< empty: measure's default list
  std::optional<int> trials;
  std::optional<int> warmups;
  std::optional<int> tokens;
  std::optional<double> min_window_s;
  std::optional<double> min_prefill_window_s;
  std::optional<double> idle_window_s;
  std::optional<double> cool_down_s;
  std::optional<std::string> edges;
  std::optional<bool> quality;
  std::optional<int> threads;
  std::vector<std::string> measure_args;  ///< further `measure` flags, passed as given
};

struct SweepPlan {
  std::string name;
  std::vector<PlanModel> models;
  std::vector<std::vector<int>> batch_lists;  ///< each one job per model; default {{1}}
  PlanSettings settings;
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
