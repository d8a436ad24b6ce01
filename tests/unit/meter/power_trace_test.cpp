// Trace and counter arithmetic, idle subtraction, and the selftest's analysis on recorded series.
#include "meter/power_trace.hpp"

#include <gtest/gtest.h>

#include "meter/energy_split.hpp"
#include "meter/selftest.hpp"

namespace ecocompute::meter {
namespace {

std::vector<PowerSample> trace_of(std::initializer_list<std::pair<std::uint64_t, double>> points) {
  std::vector<PowerSample> out;
  for (const auto& [t, w] : points) out.push_back(PowerSample{t, Watts{w}});
  return out;
}

TEST(TraceEnergyTest, CutsSegmentsAtTheWindowEdges) {
  const auto trace = trace_of({{0, 100.0}, {1'000'000, 200.0}, {2'000'000, 100.0}});
  // Window 0.5–1.5 s: P(0.5) = 150, P(1) = 200, P(1.5) = 150;
  // (150+200)/2 × 0.5 + (200+150)/2 × 0.5 = 87.5 + 87.5 = 175 J.
  EXPECT_DOUBLE_EQ(trace_energy(trace, 500'000, 1'500'000, 0)->value, 175.0);
}

TEST(TraceEnergyTest, HoldsNearestSampleOnlyWithinTolerance) {
  const auto trace = trace_of({{10'000, 100.0}, {1'000'000, 100.0}});
  // Starts 10 ms after the window: held within a 20-ms tolerance (100 W × 1 s = 100 J), refused at 5 ms.
  EXPECT_DOUBLE_EQ(trace_energy(trace, 0, 1'000'000, 20'000)->value, 100.0);
  EXPECT_FALSE(trace_energy(trace, 0, 1'000'000, 5'000).has_value());
}

TEST(CounterUpdatePeriodTest, MedianOfIntervalsBetweenChanges) {
  // Changes seen at 0.10, 0.20, 0.35, 0.45 s: intervals 0.10, 0.15, 0.10 → median 0.10 s.
  const std::vector<CounterReading> readings{{Seconds{0.0}, 10}, {Seconds{0.05}, 10}, {Seconds{0.10}, 20},
                                             {Seconds{0.20}, 30}, {Seconds{0.35}, 40}, {Seconds{0.45}, 50}};
  EXPECT_NEAR(counter_update_period(readings)->value, 0.10, 1e-12);
  EXPECT_FALSE(counter_update_period({{Seconds{0.0}, 10}, {Seconds{0.1}, 20}}).has_value());  // one change
}

TEST(SampleSpacingTest, MedianSpacing) {
  const auto trace = trace_of({{0, 1.0}, {20'000, 1.0}, {40'000, 1.0}, {100'000, 1.0}});
  // Gaps 20, 20, 60 ms → 20 ms.
  EXPECT_DOUBLE_EQ(median_sample_spacing(trace)->value, 0.02);
}

TEST(DisagreementTest, SignedPercent) {
  EXPECT_DOUBLE_EQ(*disagreement_pct(Joules{101.0}, Joules{100.0}), 1.0);
  EXPECT_FALSE(disagreement_pct(Joules{1.0}, Joules{0.0}).has_value());
}

TEST(EnergySplitTest, SubtractsIdlePowerTimesDuration) {
  // 1000 J over 10 s with 80 W idle: idle 800 J, net 200 J.
  const EnergySplit s = split_energy(Joules{1000.0}, Seconds{10.0}, Watts{80.0});
  EXPECT_DOUBLE_EQ(s.gross.value, 1000.0);
  EXPECT_DOUBLE_EQ(s.idle.value, 800.0);
  EXPECT_DOUBLE_EQ(s.net.value, 200.0);
}

TEST(EnergySplitTest, FromMeasurementsUsesBaselineAveragePower) {
  Measurement idle;
  idle.label = "idle";
  idle.status = WindowStatus::valid;
  idle.energy = Joules{600.0};
  idle.duration = Seconds{5.0};  // 120 W
  Measurement work = idle;
  work.label = "decode";
  work.energy = Joules{6000.0};
  work.duration = Seconds{20.0};
  // idle 120 W × 20 s = 2400 J; net 6000 − 2400 = 3600 J.
  auto s = split_energy(work, idle);
  ASSERT_TRUE(s.has_value());
  EXPECT_DOUBLE_EQ(s->idle.value, 2400.0);
  EXPECT_DOUBLE_EQ(s->net.value, 3600.0);

  Measurement reset = work;
  reset.status = WindowStatus::counter_reset;
  reset.energy.reset();
  auto bad = split_energy(reset, idle);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code(), ErrorCode::measurement);
  EXPECT_NE(bad.error().message().find("'decode'"), std::string::npos);
}

TEST(SelftestAnalysisTest, InstantFieldIsPartTimeWhenRatioDependsOnPhase) {
  auto phase = [](double counter_w, double field_w) {
    PhaseResult p;
    p.counter_power = Watts{counter_w};
    p.instant_field_mean = Watts{field_w};
    p.instant_field_reads = 100;
    return p;
  };
  // Ratios 212/315 = 67.3 %, 379/340 = 111.5 %: span 44.2 points > 10 → part-time.
  auto verdict = classify_instant_field({phase(315, 212), phase(340, 379)});
  ASSERT_TRUE(verdict.has_value());
  EXPECT_TRUE(verdict->part_time);
  EXPECT_NEAR(verdict->min_ratio_pct, 212.0 / 315.0 * 100.0, 1e-9);
  EXPECT_NEAR(verdict->max_ratio_pct, 379.0 / 340.0 * 100.0, 1e-9);
  // 99 % and 101 %: span 2 points → follows the counter.
  EXPECT_FALSE(classify_instant_field({phase(300, 297), phase(300, 303)})->part_time);
}

TEST(SelftestAnalysisTest, ReadCostMedianAndNearestRankP99) {
  std::vector<double> times;
  for (int i = 1; i <= 100; ++i) times.push_back(i * 1e-3);  // 1 … 100 ms
  auto cost = summarize_read_cost("f", times);
  ASSERT_TRUE(cost.has_value());
  EXPECT_NEAR(cost->median.value, 50.5e-3, 1e-12);  // (50 + 51) / 2
  EXPECT_NEAR(cost->p99.value, 99e-3, 1e-12);       // rank ceil(0.99 × 100) = 99
}

}  // namespace
}  // namespace ecocompute::meter
