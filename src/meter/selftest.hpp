// Selftest: checks the meter on a real GPU (idle, steady load, pulse trains at four phases, read
// cost) and the analysis functions behind its verdicts, which are testable on recorded series.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "meter/measurement.hpp"
#include "util/json.hpp"
#include "util/result.hpp"
#include "util/units.hpp"

namespace ecocompute::meter {

/// What the selftest runs.
struct SelftestOptions {
  std::string gpu;                 ///< `--gpu`
  std::string nvml_library;        ///< empty: default
  bool allow_shared = false;
  Seconds idle{5.0};               ///< each idle window
  Seconds steady{20.0};            ///< steady-load window (≥ 20 s for ≤ 1 % edge error at 100 ms)
  Seconds pulse_period{0.1};       ///< pulse-train period
  double pulse_duty = 0.25;
  Seconds pulse_window{6.0};       ///< window per phase
  int read_cost_reads = 200;       ///< NVML reads timed per function
};

/// The instant field (186) averaged over one pulse-train phase, against the counter's average power.
struct PhaseResult {
  double phase_fraction = 0.0;     ///< 0, 0.25, 0.5, 0.75 of the period
  Watts counter_power{0.0};        ///< counter energy / duration
  Watts instant_field_mean{0.0};   ///< mean of the field-186 readings in the window
  std::size_t instant_field_reads = 0;
  Measurement window;
};

/// Median and 99th percentile of one NVML function's read time.
struct ReadCost {
  std::string function;
  Seconds median{0.0};
  Seconds p99{0.0};
  std::size_t reads = 0;
};

/// Whether the instant field follows the counter at every phase.
struct InstantFieldVerdict {
  bool part_time = false;          ///< its phase-averaged ratio to the counter varies > threshold
  double min_ratio_pct = 0.0;      ///< min over phases of mean(186) / counter power × 100
  double max_ratio_pct = 0.0;
};

/// Everything the selftest found. Values are absent when they could not be measured.
struct SelftestReport {
  std::string gpu;                 ///< name and UUID
  std::string driver;
  std::optional<Seconds> counter_update_period;
  std::size_t counter_changes_seen = 0;
  std::optional<Seconds> trace_sample_spacing;
  std::optional<Measurement> idle_without_context;
  std::optional<Measurement> idle_with_context;
  std::optional<Measurement> steady;
  std::vector<PhaseResult> phases;
  std::optional<InstantFieldVerdict> instant_field;
  std::vector<ReadCost> read_costs;
  std::vector<std::string> problems;  ///< missing, stuck or reset counter; read failures
  [[nodiscard]] bool passed() const noexcept { return problems.empty(); }
};

/// Runs the selftest (≈ 1 minute with the defaults). Error{unavailable} without a CUDA build, NVML,
/// or GPU; a finished run that found problems returns a report with `problems` set.
Result<SelftestReport> run_selftest(const SelftestOptions& options);

/// Returns the verdict on the instant field: part-time when the ratio mean(186)/counter across phases
/// spans more than `threshold_pct` percentage points.
std::optional<InstantFieldVerdict> classify_instant_field(const std::vector<PhaseResult>& phases,
                                                          double threshold_pct = 10.0);

/// Returns the median and nearest-rank p99 of `read_times`; nullopt when empty.
std::optional<ReadCost> summarize_read_cost(std::string function, const std::vector<double>& read_times_s);

/// Returns the report as Markdown (for docs/hardware/) and as JSON.
std::string to_markdown(const SelftestReport& report);
OrderedJson to_json(const SelftestReport& report);
/// Returns a Measurement as JSON (joules, seconds, watts with unit suffixes; the trace is left out).
OrderedJson to_json(const Measurement& m);

}  // namespace ecocompute::meter
