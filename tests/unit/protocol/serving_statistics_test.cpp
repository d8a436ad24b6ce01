// Serving statistics: percentiles, and the break-even concurrency interpolated in log2 concurrency.
#include "protocol/serving_statistics.hpp"

#include <cmath>

#include <gtest/gtest.h>

#include "util/statistics.hpp"

namespace ecocompute::protocol {
namespace {

// A level's ΔE over 3 blocks with this mean and 95 % half-width (its SD derived from them).
Summary level(double mean, double half_width) {
  Summary s;
  s.n = 3;
  s.mean = mean;
  s.sd = half_width / student_t_critical(0.95, 2) * std::sqrt(3.0);
  s.confidence = 0.95;
  s.ci_low = mean - half_width;
  s.ci_high = mean + half_width;
  s.ci_half_width = half_width;
  return s;
}

TEST(ServingStatistics, PercentilesInterpolateBetweenOrderStatistics) {
  const Percentiles p = percentiles({4.0, 1.0, 3.0, 2.0, 5.0});
  ASSERT_TRUE(p.p50 && p.p90 && p.p99);
  EXPECT_DOUBLE_EQ(*p.p50, 3.0);
  EXPECT_DOUBLE_EQ(*p.p90, 4.6);
  EXPECT_NEAR(*p.p99, 4.96, 1e-12);
  EXPECT_EQ(p.n, 5u);
  EXPECT_FALSE(percentiles({}).p50.has_value());
}

// One ok trial's figures: window J/token and tokens/s (absent: not measured).
ServingTrialFigures figures(std::optional<double> mj_per_token, std::optional<double> tokens_per_s) {
  ServingTrialFigures f;
  f.window_mj_per_token = mj_per_token;
  f.window_tokens_per_s = tokens_per_s;
  return f;
}

TEST(ServingStatistics, TheFirstBlockIsComparedWithTheMeanOfTheLaterBlocks) {
  // F16 at C = 8 on the H200 (2026-12-01, k = 8), blocks 1–4: block 1 above each later block.
  const std::vector<std::pair<int, ServingTrialFigures>> cold{
      {1, figures(606.7, 550.0)}, {0, figures(656.2, 480.0)}, {2, figures(591.1, 560.0)}, {3, figures(601.5, 555.0)}};
  const auto f = first_block_against_later(cold);
  ASSERT_TRUE(f.has_value());
  EXPECT_NEAR(f->energy_pct, (656.2 / ((606.7 + 591.1 + 601.5) / 3.0) - 1.0) * 100.0, 1e-9);
  ASSERT_TRUE(f->throughput_pct.has_value());
  EXPECT_NEAR(*f->throughput_pct, (480.0 / 555.0 - 1.0) * 100.0, 1e-9);
  EXPECT_TRUE(f->above_every_later);
  EXPECT_EQ(f->later, 3u);

  // Block 1 cheaper than one later block: not above every later block, and a negative excess.
  const std::vector<std::pair<int, ServingTrialFigures>> warm{{0, figures(600.0, 500.0)}, {1, figures(590.0, 500.0)},
                                                              {2, figures(630.0, std::nullopt)}};
  const auto g = first_block_against_later(warm);
  ASSERT_TRUE(g.has_value());
  EXPECT_NEAR(g->energy_pct, (600.0 / 610.0 - 1.0) * 100.0, 1e-9);
  EXPECT_FALSE(g->above_every_later);
  EXPECT_FALSE(g->throughput_pct.has_value()) << "a later block without a rate leaves the rate comparison out";

  // Nothing to compare: block 1 failed or unmeasured, or no later block.
  EXPECT_FALSE(first_block_against_later(std::vector<std::pair<int, ServingTrialFigures>>{
                                             {1, figures(600.0, 1.0)}, {2, figures(610.0, 1.0)}})
                   .has_value());
  EXPECT_FALSE(first_block_against_later(std::vector<std::pair<int, ServingTrialFigures>>{
                                             {0, figures(std::nullopt, 1.0)}, {1, figures(610.0, 1.0)}})
                   .has_value());
  EXPECT_FALSE(first_block_against_later(std::vector<std::pair<int, ServingTrialFigures>>{{0, figures(600.0, 1.0)}})
                   .has_value());
}

TEST(ServingStatistics, BreakEvenIsInterpolatedInLogConcurrency) {
  const std::vector<int> levels{1, 4, 16};
  // −20 % at 4, +20 % at 16: the mean crosses zero halfway in log2, at 8.
  const std::vector<Summary> deltas{level(-30.0, 2.0), level(-20.0, 5.0), level(20.0, 5.0)};
  const BreakEven b = find_break_even(levels, deltas);
  ASSERT_TRUE(b.crosses) << b.note;
  EXPECT_EQ(b.direction, "stops_saving");
  ASSERT_TRUE(b.concurrency.has_value());
  EXPECT_NEAR(*b.concurrency, 8.0, 1e-9);
  // The upper CI limit (−15 → +25) crosses first, the lower one (−25 → +15) last.
  ASSERT_TRUE(b.low && b.high);
  EXPECT_NEAR(*b.low, std::exp2(2.0 + 15.0 / 40.0 * 2.0), 1e-9);
  EXPECT_NEAR(*b.high, std::exp2(2.0 + 25.0 / 40.0 * 2.0), 1e-9);
  EXPECT_LT(*b.low, *b.concurrency);
  EXPECT_GT(*b.high, *b.concurrency);
  EXPECT_NE(b.note.find("not a confidence interval"), std::string::npos);
}

TEST(ServingStatistics, AFormatThatStopsSavingAndSavesAgainHasTwoCrossings) {
  // The shape of the H200 llama-server sweep: saves at 1 and 2, costs at 4 and 8, saves from 16 on.
  const std::vector<int> levels{1, 2, 4, 8, 16, 32};
  const std::vector<Summary> deltas{level(-37.0, 1.4), level(-22.0, 1.2), level(3.0, 0.5),
                                    level(39.0, 4.0),  level(-18.0, 4.7), level(-5.0, 0.9)};
  const std::vector<BreakEven> all = find_crossings(levels, deltas);
  ASSERT_EQ(all.size(), 2u);
  // The first is find_break_even's own.
  const BreakEven first = find_break_even(levels, deltas);
  EXPECT_EQ(all[0].direction, "stops_saving");
  EXPECT_DOUBLE_EQ(*all[0].concurrency, *first.concurrency);
  EXPECT_NEAR(*all[0].concurrency, std::exp2(1.0 + 22.0 / 25.0), 1e-9);
  // The second: +39 at 8 to −18 at 16, 39/57 of the way in log2.
  const BreakEven& again = all[1];
  ASSERT_TRUE(again.crosses) << again.note;
  EXPECT_EQ(again.direction, "starts_saving");
  EXPECT_NEAR(*again.concurrency, std::exp2(3.0 + 39.0 / 57.0), 1e-9);
  ASSERT_TRUE(again.ci_available) << again.note;
  ASSERT_TRUE(again.ci_low && again.ci_high) << again.note;
  EXPECT_GT(*again.ci_low, 8.0);
  EXPECT_LT(*again.ci_high, 16.0);
  EXPECT_NE(again.note.find("after the crossing at"), std::string::npos) << again.note;
  EXPECT_NE(again.note.find("levels 4…32"), std::string::npos) << again.note;
  // One crossing, or none: one entry, the same as find_break_even's.
  const std::vector<int> three{1, 4, 16};
  const std::vector<Summary> once{level(-30.0, 2.0), level(-20.0, 5.0), level(20.0, 5.0)};
  ASSERT_EQ(find_crossings(three, once).size(), 1u);
  const std::vector<Summary> never{level(-30.0, 2.0), level(-20.0, 5.0), level(-10.0, 5.0)};
  const std::vector<BreakEven> none = find_crossings(three, never);
  ASSERT_EQ(none.size(), 1u);
  EXPECT_FALSE(none.front().crosses);
}

TEST(ServingStatistics, TheCrossingHasASimulatedCiThatNarrowsWithTheLevelsCis) {
  const std::vector<int> levels{1, 4, 16};
  const std::vector<Summary> wide{level(-30.0, 2.0), level(-20.0, 5.0), level(20.0, 5.0)};
  const BreakEven b = find_break_even(levels, wide);
  ASSERT_TRUE(b.ci_available) << b.note;
  ASSERT_TRUE(b.ci_low && b.ci_high) << b.note;
  EXPECT_LT(*b.ci_low, *b.concurrency);
  EXPECT_GT(*b.ci_high, *b.concurrency);
  EXPECT_GT(*b.ci_low, 4.0);
  EXPECT_LT(*b.ci_high, 16.0);
  EXPECT_NE(b.note.find("95 % CI of the crossing"), std::string::npos) << b.note;
  // The same data give the same interval (fixed seed).
  const BreakEven again = find_break_even(levels, wide);
  EXPECT_EQ(*again.ci_low, *b.ci_low);
  EXPECT_EQ(*again.ci_high, *b.ci_high);

  const std::vector<Summary> narrow{level(-30.0, 0.02), level(-20.0, 0.02), level(20.0, 0.02)};
  const BreakEven sharp = find_break_even(levels, narrow);
  ASSERT_TRUE(sharp.ci_low && sharp.ci_high) << sharp.note;
  EXPECT_NEAR(*sharp.ci_low, 8.0, 0.02);
  EXPECT_NEAR(*sharp.ci_high, 8.0, 0.02);
  EXPECT_LT(*sharp.ci_high - *sharp.ci_low, (*b.ci_high - *b.ci_low) / 50.0);
}

TEST(ServingStatistics, ACrossingCiThatLeavesTheLevelsSaysSoAndALoneBlockGivesNone) {
  const std::vector<int> levels{1, 2};
  // At C = 2 the ΔE is as likely below zero as above: many sweeps never cross within the levels.
  const BreakEven open = find_break_even(levels, std::vector<Summary>{level(-10.0, 1.0), level(1.0, 5.0)});
  ASSERT_TRUE(open.ci_available);
  EXPECT_TRUE(open.ci_high_beyond_highest());
  EXPECT_FALSE(open.ci_high.has_value());
  EXPECT_NE(open.note.find("> 2 (beyond the highest level)"), std::string::npos) << open.note;

  std::vector<Summary> lone{level(-10.0, 1.0), level(10.0, 1.0)};
  lone[1].n = 1;
  lone[1].sd.reset();
  const BreakEven none = find_break_even(levels, lone);
  ASSERT_TRUE(none.crosses);
  EXPECT_FALSE(none.ci_available);
  EXPECT_NE(none.note.find("no CI of the crossing"), std::string::npos) << none.note;
}

TEST(ServingStatistics, NoSignChangeIsNoneInTheRange) {
  const std::vector<int> levels{1, 2, 4};
  const std::vector<Summary> deltas{level(-30.0, 2.0), level(-20.0, 2.0), level(-10.0, 2.0)};
  const BreakEven b = find_break_even(levels, deltas);
  EXPECT_FALSE(b.crosses);
  EXPECT_FALSE(b.concurrency.has_value());
  EXPECT_NE(b.note.find("none in the range"), std::string::npos) << b.note;
}

TEST(ServingStatistics, AStartingSavingIsReportedWithItsDirection) {
  const std::vector<int> levels{2, 8};
  const std::vector<Summary> deltas{level(10.0, 1.0), level(-10.0, 1.0)};
  const BreakEven b = find_break_even(levels, deltas);
  ASSERT_TRUE(b.crosses);
  EXPECT_EQ(b.direction, "starts_saving");
  EXPECT_NEAR(*b.concurrency, 4.0, 1e-9);
}

TEST(ServingStatistics, ACiAlreadyAcrossZeroAtTheFirstLevelBoundsAtThatLevel) {
  const std::vector<int> levels{1, 2};
  const std::vector<Summary> deltas{level(-1.0, 5.0), level(10.0, 5.0)};
  const BreakEven b = find_break_even(levels, deltas);
  ASSERT_TRUE(b.crosses);
  ASSERT_TRUE(b.low.has_value());
  EXPECT_DOUBLE_EQ(*b.low, 1.0);
  EXPECT_NE(b.note.find("at or below the lowest level"), std::string::npos) << b.note;
}

TEST(ServingStatistics, AnUpperBoundBeyondTheLevelsIsLeftOpen) {
  const std::vector<int> levels{1, 2};
  const std::vector<Summary> deltas{level(-10.0, 1.0), level(1.0, 5.0)};
  const BreakEven b = find_break_even(levels, deltas);
  ASSERT_TRUE(b.crosses);
  EXPECT_FALSE(b.high.has_value());
  EXPECT_NE(b.note.find("beyond the highest level"), std::string::npos) << b.note;
}

}  // namespace
}  // namespace ecocompute::protocol
