// Statistics: summaries of trials (mean, SD, CV, Student-t CI) and paired ΔE % against the baseline.
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

namespace ecocompute::protocol {

/// Mean, spread and a two-sided Student-t confidence interval of n values.
struct Summary {
  std::size_t n = 0;
  double mean = 0.0;                 ///< 0 when n = 0
  std::optional<double> sd;          ///< sample SD (ddof 1); absent when n < 2
  std::optional<double> cv_pct;      ///< SD / |mean| × 100; absent when n < 2 or mean = 0
  double confidence = 0.95;
  std::optional<double> ci_low;      ///< mean − t(conf, n−1) · SD/√n; absent when n < 2
  std::optional<double> ci_high;
  std::optional<double> ci_half_width;
};

/// Summarizes `values` with a `confidence` (two-sided) Student-t interval. Never fails: too few
/// values leave the optional fields empty.
[[nodiscard]] Summary summarize(std::span<const double> values, double confidence = 0.95);

/// Returns the two-sided Student-t critical value t(1 − (1 − confidence)/2, df) from Boost.Math,
/// e.g. 4.302653 for 95 % and df = 2. Throws InvariantError for df < 1 or confidence ∉ (0, 1).
[[nodiscard]] double student_t_critical(double confidence, std::size_t df);

/// Returns (candidate − baseline) / baseline × 100: positive costs energy, negative saves.
/// Throws InvariantError when baseline is 0.
[[nodiscard]] double delta_pct(double candidate, double baseline);

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
                                                           double confidence = 0.95);

}  // namespace ecocompute::protocol
