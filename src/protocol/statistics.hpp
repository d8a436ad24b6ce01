// Trial statistics: summaries of trials (util/statistics) and paired ΔE % against the baseline.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/condition.hpp"
#include "protocol/trial_result.hpp"
#include "util/defaults.hpp"
#include "util/statistics.hpp"

namespace ecocompute::protocol {

/// A per-trial quantity, as data: its name (a JSON key, unit suffix included), unit and getter.
struct TrialMetric {
  std::string_view name;  ///< e.g. "decode_energy_per_token_gross_mj"
  std::string_view unit;  ///< e.g. "mJ/token"
  std::function<std::optional<double>(const TrialResult&)> value;  ///< absent when not measured
};

/// Returns the table of per-trial metrics: energy per token (mJ) for prefill and decode, gross and
/// net; throughput (tokens/s), average power (W), window energy (J), window duration (s) and
/// counter-edge uncertainty (%) for prefill and decode.
[[nodiscard]] const std::vector<TrialMetric>& trial_metrics();

/// Returns the metric named `name`, or nullptr.
[[nodiscard]] const TrialMetric* find_trial_metric(std::string_view name);

/// The metrics compared pairwise against the baseline: energy per token, prefill and decode,
/// gross and net.
[[nodiscard]] const std::vector<std::string_view>& paired_metric_names();

/// One metric summarized over a condition's ok trials.
struct MetricSummary {
  std::string name;
  std::string unit;
  Summary summary;
};

/// Every trial metric of one condition, over its ok trials.
struct ConditionSummary {
  std::size_t condition = 0;
  std::string precision;
  std::size_t n_trials = 0;   ///< trials scheduled
  std::size_t n_ok = 0;       ///< trials that entered the statistics
  std::vector<MetricSummary> metrics;  ///< in trial_metrics() order; metrics with no value are left out

  /// Returns the summary of the metric named `name`, or nullptr.
  [[nodiscard]] const MetricSummary* find(std::string_view name) const;
};

/// One block's pair: a candidate trial and the baseline trial of the same block and prompt length.
struct Pair {
  int block = 0;
  std::size_t candidate_trial = 0;  ///< TrialResult::index
  std::size_t baseline_trial = 0;
  double candidate_value = 0.0;
  double baseline_value = 0.0;
  double delta_pct = 0.0;           ///< (candidate − baseline) / baseline × 100
};

/// Paired ΔE % of one candidate condition against the baseline, for one metric.
struct PairedComparison {
  std::size_t condition = 0;           ///< the candidate
  std::size_t baseline_condition = 0;
  std::string precision;
  std::string baseline_precision;
  std::string metric;                  ///< a name from paired_metric_names()
  std::vector<Pair> pairs;             ///< blocks where both trials are ok and the metric present
  Summary delta_pct;                   ///< mean, SD, CI of the pairs' delta_pct; n = number of pairs
};

/// Summarizes each condition over its ok trials.
[[nodiscard]] std::vector<ConditionSummary> summarize_conditions(std::span<const Condition> conditions,
                                                                 std::span<const TrialResult> trials);

/// Pairs every candidate trial with the baseline trial of the same block (and prompt length) and
/// summarizes ΔE % per metric of paired_metric_names(). Conditions without a baseline of their
/// prompt length get no comparison.
[[nodiscard]] std::vector<PairedComparison> compare_paired(std::span<const Condition> conditions,
                                                           std::span<const TrialResult> trials,
                                                           double confidence = defaults::ci_confidence);

/// A trial whose decode throughput is this far from its condition's median (as a fraction) is an
/// outlier worth a warning: one slow trial (another job on the machine, a clock drop) moves the mean.
inline constexpr double kThroughputOutlierFraction = 0.20;

/// Returns one warning per ok trial whose decode throughput differs from the median of its
/// condition's ok trials by more than `fraction`, naming the trial, its rate and the median.
/// Conditions with fewer than 3 ok trials have no meaningful median and get none.
[[nodiscard]] std::vector<std::string> throughput_outliers(std::span<const Condition> conditions,
                                                           std::span<const TrialResult> trials,
                                                           double fraction = kThroughputOutlierFraction);

}  // namespace ecocompute::protocol
