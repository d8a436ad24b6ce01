// RunReport: run.json as plain data — the design, the order and seed, every trial's status and
// reason, the idle power, and each condition's report file (or why there is none) with its headline
// figures. Written next to the energy-<precision>.json reports of one `measure` run.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/energy_report.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::report {

inline constexpr std::string_view run_schema_version = "ecocompute-run/1.0";

struct RunDesign {
  std::string model;                  ///< the source model's file name
  std::string baseline;
  std::vector<std::string> candidates;
  int trials_per_precision = 0;
  int warmups = 0;
  std::int64_t tokens_per_run = 0;
  int iterations_requested = 0;
  int iterations = 0;
  std::vector<std::int64_t> prompt_lengths_tokens;
  std::vector<std::int64_t> batches;  ///< batch levels; written only when not just batch 1
  std::string schedule;
  std::string seed;                   ///< decimal text
  std::string iterations_explanation;
  bool accept_throttled = false;      ///< throttled trials counted (flagged); written only when true
};

struct RunTrial {
  std::int64_t order_index = 0;
  std::string condition;              ///< the condition's label ("Q8_0", "F16/p512")
  std::int64_t repetition = 0;
  std::int64_t block = 0;
  std::string status;
  std::string reason;
};

struct RunIdle {
  std::optional<double> power_w;
  std::string failure;                ///< why there is no idle power; "" when there is
};

/// A condition's headline figures, copied from its written report.
struct ConditionHeadline {
  std::int64_t n_trials = 0;
  std::int64_t n_failed = 0;
  std::optional<double> energy_per_token_mj;
  PairedDelta vs_fp16_energy_pct;
  std::optional<double> throughput_tokens_per_s;
  bool has_quality = false;
  std::optional<double> delta_ppl_pct;
  std::optional<double> kld;
};

struct RunCondition {
  std::string label;
  std::string precision;
  bool is_baseline = false;
  std::int64_t prompt_tokens = 0;
  std::int64_t batch = 1;             ///< parallel sequences per decode step; written only when > 1
  std::optional<std::string> report;  ///< file name of its energy.json; absent when none was written
  std::string failure;                ///< why not; "" when written
  std::optional<ConditionHeadline> headline;  ///< present when its report was written
};

struct RunReport {
  std::string schema_version{run_schema_version};
  std::string run_id;
  std::string started_utc;
  std::string finished_utc;
  bool cancelled = false;
  std::string measurement_source;
  std::string meter_device;
  std::string environment_fingerprint;
  std::string weights;
  RunDesign design;
  std::vector<std::string> order;     ///< "<label> #<repetition + 1>" in run order
  std::vector<RunTrial> trials;
  RunIdle idle;
  std::vector<RunCondition> conditions;
  std::vector<std::string> warnings;
};

/// Returns a condition's headline figures from its report.
[[nodiscard]] ConditionHeadline headline_of(const EnergyReport& report);

/// Reads a parsed run.json; any other document (an energy.json among them) is an invalid_input error
/// naming `source` and saying what it is.
[[nodiscard]] Result<RunReport> run_report_from_json(const OrderedJson& document, std::string_view source);

/// Returns the run summary as JSON (2-space indented by its writer).
[[nodiscard]] OrderedJson to_json(const RunReport& report);

/// Writes run.json atomically (2-space indent, final newline).
[[nodiscard]] Result<void> write_run_report(const std::filesystem::path& path, const RunReport& report);

}  // namespace ecocompute::report
