// Trial statistics tests against hand-computed values (arithmetic in the comments).
#include "protocol/statistics.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace ecocompute::protocol {
namespace {

// A trial with a decode window of `energy_j` over `tokens` tokens, valid, in `block`.
TrialResult trial(std::size_t index, std::size_t condition, int block, double energy_j, std::int64_t tokens,
                  TrialStatus status = TrialStatus::ok) {
  TrialResult t;
  t.index = index;
  t.condition = condition;
  t.block = block;
  t.repetition = block;
  t.status = status;
  WindowResult w;
  w.kind = WindowKind::decode;
  w.tokens = tokens;
  w.measurement.status = meter::WindowStatus::valid;
  w.measurement.duration = Seconds{10.0};
  w.measurement.energy = Joules{energy_j};
  w.energy_gross = Joules{energy_j};
  w.energy_idle = Joules{1000.0};  // 100 W × 10 s
  w.energy_net = Joules{energy_j - 1000.0};
  t.decode = w;
  return t;
}

TEST(WindowResult, DerivedFigures) {
  const TrialResult t = trial(0, 0, 0, 4000.0, 2560);
  // 4000 J / 2560 tokens = 1.5625 J = 1562.5 mJ; net (4000 − 1000) / 2560 = 1171.875 mJ
  EXPECT_DOUBLE_EQ(*t.decode->energy_per_token_gross_mj(), 1562.5);
  EXPECT_DOUBLE_EQ(*t.decode->energy_per_token_net_mj(), 1171.875);
  // 2560 tokens / 10 s = 256 tokens/s; 4000 J / 10 s = 400 W
  EXPECT_DOUBLE_EQ(*t.decode->throughput_tokens_per_s(), 256.0);
  EXPECT_DOUBLE_EQ(t.decode->average_power()->value, 400.0);
  EXPECT_FALSE(t.decode->edge_uncertainty_pct().has_value());
  const TrialMetric* metric = find_trial_metric("decode_avg_power_w");
  ASSERT_NE(metric, nullptr);
  EXPECT_EQ(metric->unit, "W");
  EXPECT_DOUBLE_EQ(*metric->value(t), 400.0);
  EXPECT_FALSE(find_trial_metric("prefill_avg_power_w")->value(t).has_value());  // no prefill window
  EXPECT_EQ(find_trial_metric("no_such_metric"), nullptr);
}

TEST(ComparePaired, PairsCandidateWithBaselineOfTheSameBlock) {
  const std::vector<Condition> conditions{{0, "F16", true, 0}, {1, "Q4_K_M", false, 0}};
  // Blocks: baseline 2000, 2100, 1900 J; candidate 1500, 1470, 1520 J; all 1000 tokens.
  // ΔE per block: 1500/2000 − 1 = −25 %; 1470/2100 − 1 = −30 %; 1520/1900 − 1 = −20 %.
  // mean −25 %, SD √((0 + 25 + 25) / 2) = 5, half-width 4.302653 × 5 / √3 = 12.420804
  const std::vector<TrialResult> trials{
      trial(0, 0, 0, 2000, 1000), trial(1, 1, 0, 1500, 1000), trial(2, 1, 1, 1470, 1000),
      trial(3, 0, 1, 2100, 1000), trial(4, 0, 2, 1900, 1000), trial(5, 1, 2, 1520, 1000)};
  const std::vector<PairedComparison> comparisons = compare_paired(conditions, trials);
  ASSERT_EQ(comparisons.size(), paired_metric_names().size());
  const PairedComparison& gross = comparisons[0];
  EXPECT_EQ(gross.metric, "decode_energy_per_token_gross_mj");
  EXPECT_EQ(gross.precision, "Q4_K_M");
  EXPECT_EQ(gross.baseline_precision, "F16");
  ASSERT_EQ(gross.pairs.size(), 3u);
  EXPECT_EQ(gross.pairs[1].candidate_trial, 2u);
  EXPECT_EQ(gross.pairs[1].baseline_trial, 3u);
  EXPECT_NEAR(gross.pairs[1].delta_pct, -30.0, 1e-9);
  EXPECT_NEAR(gross.delta_pct.mean, -25.0, 1e-9);
  EXPECT_NEAR(*gross.delta_pct.sd, 5.0, 1e-9);
  EXPECT_NEAR(*gross.delta_pct.ci_half_width, 4.302652729749462 * 5.0 / std::sqrt(3.0), 1e-9);
  // Net: (500/1000 − 1) = −50 %; 470/1100 − 1 = −57.2727 %; 520/900 − 1 = −42.2222 %.
  const PairedComparison& net = comparisons[1];
  EXPECT_EQ(net.metric, "decode_energy_per_token_net_mj");
  EXPECT_NEAR(net.delta_pct.mean, (-50.0 + (470.0 / 1100.0 - 1) * 100 + (520.0 / 900.0 - 1) * 100) / 3, 1e-9);
  // No prefill windows: the prefill comparisons exist with no pairs.
  EXPECT_TRUE(comparisons[2].pairs.empty());
  EXPECT_EQ(comparisons[2].delta_pct.n, 0u);
}

TEST(ComparePaired, FailedTrialsBreakOnlyTheirPair) {
  const std::vector<Condition> conditions{{0, "F16", true, 0}, {1, "Q8_0", false, 0}};
  const std::vector<TrialResult> trials{
      trial(0, 0, 0, 2000, 1000), trial(1, 1, 0, 3000, 1000),
      trial(2, 1, 1, 3100, 1000, TrialStatus::engine_failed), trial(3, 0, 1, 2000, 1000),
      trial(4, 0, 2, 2000, 1000, TrialStatus::throttled), trial(5, 1, 2, 3200, 1000)};
  const std::vector<PairedComparison> comparisons = compare_paired(conditions, trials);
  // Only block 0 pairs: 3000 / 2000 − 1 = +50 %.
  ASSERT_EQ(comparisons[0].pairs.size(), 1u);
  EXPECT_NEAR(comparisons[0].delta_pct.mean, 50.0, 1e-9);
  EXPECT_FALSE(comparisons[0].delta_pct.sd.has_value());
}

TEST(SummarizeConditions, CountsAndUsesOnlyOkTrials) {
  const std::vector<Condition> conditions{{0, "F16", true, 0}};
  const std::vector<TrialResult> trials{trial(0, 0, 0, 2000, 1000), trial(1, 0, 1, 2200, 1000),
                                        trial(2, 0, 2, 9999, 1000, TrialStatus::invalid_window)};
  const std::vector<ConditionSummary> summaries = summarize_conditions(conditions, trials);
  ASSERT_EQ(summaries.size(), 1u);
  EXPECT_EQ(summaries[0].n_trials, 3u);
  EXPECT_EQ(summaries[0].n_ok, 2u);
  // (2000 + 2200) / 2 J over 1000 tokens = 2100 mJ/token
  const MetricSummary* e = summaries[0].find("decode_energy_per_token_gross_mj");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->unit, "mJ/token");
  EXPECT_NEAR(e->summary.mean, 2100.0, 1e-9);
  EXPECT_EQ(summaries[0].find("prefill_energy_per_token_gross_mj"), nullptr);
}

TEST(ThroughputOutliers, FlagsATrialFarFromItsConditionsMedian) {
  // Four F16 trials of 2560 tokens: 10, 10.2, 9.9 s (≈ 256 tok/s) and one of 40 s (64 tok/s).
  const std::vector<Condition> conditions{{0, "F16", true, 0}};
  std::vector<TrialResult> trials;
  const double seconds[] = {10.0, 10.2, 9.9, 40.0};
  for (std::size_t i = 0; i < 4; ++i) {
    TrialResult t = trial(i, 0, static_cast<int>(i), 3000.0, 2560);
    t.decode->measurement.duration = Seconds{seconds[i]};
    trials.push_back(t);
  }
  const std::vector<std::string> warnings = throughput_outliers(conditions, trials);
  ASSERT_EQ(warnings.size(), 1u);
  // Median of 256, 250.98, 258.59, 64 = (250.98 + 256) / 2 = 253.49; 64 is −75 % from it.
  EXPECT_NE(warnings[0].find("trial 4 (F16 #4): decode 64.0 tok/s is -75 %"), std::string::npos) << warnings[0];
  // Within 20 % of the median: nothing to say; fewer than 3 trials: no median to judge by.
  trials[3].decode->measurement.duration = Seconds{11.0};
  EXPECT_TRUE(throughput_outliers(conditions, trials).empty());
  trials.resize(2);
  trials[1].decode->measurement.duration = Seconds{40.0};
  EXPECT_TRUE(throughput_outliers(conditions, trials).empty());
}

}  // namespace
}  // namespace ecocompute::protocol
