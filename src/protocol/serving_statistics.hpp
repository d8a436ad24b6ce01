// Serving statistics: per endpoint and concurrency level, the trials' energy, power, throughput and
// latency; the paired ΔE of each candidate endpoint against the baseline at the same level; and the
// break-even concurrency where a candidate's saving ends.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "protocol/serving_level.hpp"
#include "util/defaults.hpp"
#include "util/statistics.hpp"

namespace ecocompute::protocol {

/// Per-trial figures of one LevelRun; energy figures are absent when the meter read none.
struct ServingTrialFigures {
  std::optional<double> window_mj_per_token;   ///< steady-state window energy / window tokens
  std::optional<double> whole_mj_per_token;    ///< whole-run energy / every ok request's tokens
  std::optional<double> joules_per_request;    ///< whole-run energy / ok requests
  /// Whole-run energy / every ok request's prompt and output tokens (prefill and decode together).
  std::optional<double> whole_mj_per_total_token;
  std::optional<double> window_avg_power_w;
  std::optional<double> window_tokens_per_s;   ///< window tokens / window duration
  std::optional<double> whole_tokens_per_s;
};
[[nodiscard]] ServingTrialFigures trial_figures(const LevelRun& run);

/// p50 / p90 / p99 of a sample (linear interpolation between order statistics); absent when empty.
struct Percentiles {
  std::optional<double> p50, p90, p99;
  std::size_t n = 0;
};
[[nodiscard]] Percentiles percentiles(std::vector<double> values);

/// An endpoint's first block at a level against its later blocks there: whether the level warm-up was
/// long enough. A diagnostic only: the first block stays in every statistic.
struct FirstBlock {
  double energy_pct = 0.0;      ///< window J/token of block 1 over the mean of the later blocks, −1, in %
  std::optional<double> throughput_pct;  ///< the same for window tokens/s
  bool above_every_later = false;        ///< block 1 cost more per token than each later block
  std::size_t later = 0;                 ///< later blocks behind the mean
};

/// One endpoint at one level, over its ok trials (latencies pooled over their ok requests).
struct ServingLevelSummary {
  std::size_t endpoint = 0;
  std::string label;
  int concurrency = 1;
  std::size_t n_trials = 0;        ///< trials run
  std::size_t n_ok = 0;            ///< trials in the statistics
  std::int64_t requests_ok = 0;
  std::int64_t requests_failed = 0;
  std::int64_t level_warmup_sent = 0;    ///< unmetered level warm-up requests before its trials
  std::int64_t level_warmup_failed = 0;  ///< of those, failed (a server not ready, or overloaded)
  std::int64_t window_tokens = 0;  ///< summed over ok trials (rounded)
  std::int64_t whole_tokens = 0;
  Summary window_mj_per_token;
  Summary whole_mj_per_token;
  Summary joules_per_request;
  Summary whole_mj_per_total_token;
  Summary window_avg_power_w;
  Summary window_tokens_per_s;
  Percentiles ttft_s;
  Percentiles itl_s;
  /// Absent unless block 1 and at least one later block are ok and measured.
  std::optional<FirstBlock> first_block;
  std::vector<std::string> failures;  ///< one line per trial not ok
  /// Why requests failed: each distinct reason with its count, most frequent first (at most 5).
  std::vector<std::pair<std::string, std::int64_t>> request_failures;
};

/// A candidate against the baseline at one level: ΔE % of window J/token, paired by block.
struct ServingPaired {
  std::size_t candidate = 0;
  int concurrency = 1;
  std::vector<double> deltas_pct;  ///< one per block where both trials are ok and measured
  Summary delta_pct;
};

/// Compares block 1's figures with the later blocks' (`by_block`: an ok trial's block with its figures).
[[nodiscard]] std::optional<FirstBlock> first_block_against_later(
    std::span<const std::pair<int, ServingTrialFigures>> by_block);

/// Pairs the candidate's ok trials at `concurrency` with the baseline's (endpoint 0) of the same block.
[[nodiscard]] ServingPaired paired_at_level(std::span<const LevelRun> runs, std::size_t candidate, int concurrency,
                                            double confidence);

/// Where the candidate's mean paired ΔE first changes sign between adjacent levels (in ascending
/// concurrency), interpolated linearly in log2(concurrency). The bounds are where the CI limits of
/// the level ΔE cross zero, interpolated the same way: a range from the level CIs, not a confidence
/// interval of the crossing itself.
struct BreakEven {
  std::size_t candidate = 0;
  bool crosses = false;
  std::string direction;                    ///< "stops_saving" (ΔE goes from < 0 to ≥ 0) or "starts_saving"
  std::optional<double> concurrency;        ///< the interpolated crossing
  std::optional<double> low, high;          ///< the range from the level CIs (absent: beyond the levels)
  /// The crossing's confidence interval (at the levels' confidence), simulated: kBreakEvenDraws sweeps
  /// whose level ΔE are drawn independently from each level's Student-t sampling distribution (mean,
  /// SD/√n, n − 1 degrees of freedom), the crossing in the same direction found in each, and its
  /// percentiles. A draw that does not cross within the levels counts as beyond the highest level, one
  /// already past zero at the lowest level as at or below it; such a bound is left absent.
  /// Not computed (ci_available false) when a level has n < 2.
  bool ci_available = false;
  std::optional<double> ci_low, ci_high;
  std::string note;                         ///< in words, incl. "none in the range"

  /// The interval's lower bound is at or below the lowest level (computed, and absent).
  [[nodiscard]] bool ci_low_at_or_below_lowest() const { return ci_available && !ci_low; }
  /// The interval's upper bound is beyond the highest level (computed, and absent).
  [[nodiscard]] bool ci_high_beyond_highest() const { return ci_available && !ci_high; }
};

/// Simulated sweeps behind BreakEven's interval (fixed seed: the same data give the same interval).
inline constexpr int kBreakEvenDraws = 20000;

struct ServingAnalysis {
  std::vector<ServingLevelSummary> levels;  ///< endpoint-major, levels ascending
  std::vector<ServingPaired> paired;        ///< candidates only
  std::vector<BreakEven> break_even;        ///< one per candidate: its first crossing
  /// Crossings after a candidate's first, in ascending concurrency (a format that stops saving and
  /// saves again further up), found by find_crossings.
  std::vector<BreakEven> later_crossings;
  double confidence = defaults::ci_confidence;

  [[nodiscard]] const ServingLevelSummary* find(std::size_t endpoint, int concurrency) const;
  [[nodiscard]] const ServingPaired* find_paired(std::size_t candidate, int concurrency) const;
};

/// Summarizes `runs` of `n_endpoints` endpoints (0 is the baseline).
[[nodiscard]] ServingAnalysis analyze_serving(std::span<const LevelRun> runs, std::size_t n_endpoints,
                                              double confidence = defaults::ci_confidence);

/// Finds the break-even concurrency from per-level paired ΔE (levels ascending, each with a mean
/// and, when n ≥ 2, a CI). Exposed for tests.
[[nodiscard]] BreakEven find_break_even(std::span<const int> levels, std::span<const Summary> deltas);

/// Every sign change of the mean paired ΔE, in ascending concurrency. The first is find_break_even's;
/// each later one is find_break_even on the levels from the first one at or past the previous
/// crossing, so its range and CI rest on those levels only, and its note says after which crossing it
/// comes. No crossing: one entry that says so.
[[nodiscard]] std::vector<BreakEven> find_crossings(std::span<const int> levels, std::span<const Summary> deltas);

}  // namespace ecocompute::protocol
