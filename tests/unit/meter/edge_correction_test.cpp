// Edge staleness from a counter change and a power trace: pure arithmetic.
#include "meter/edge_correction.hpp"

#include <gtest/gtest.h>

namespace ecocompute::meter {
namespace {

std::vector<PowerSample> ramp(std::uint64_t from_us, std::uint64_t to_us, double from_w, double to_w) {
  std::vector<PowerSample> trace;
  for (std::uint64_t t = from_us; t <= to_us; t += 20'000) {
    const double w = static_cast<double>(t - from_us) / static_cast<double>(to_us - from_us);
    trace.push_back(PowerSample{t, Watts{from_w + w * (to_w - from_w)}});
  }
  return trace;
}

TEST(ChangeTo, FindsTheChangeThatProducedAValueAndNothingForAnOlderValue) {
  const std::vector<CounterChange> changes{{0, 10, 100}, {90, 110, 200}, {190, 210, 300}};
  ASSERT_TRUE(change_to(changes, 200).has_value());
  EXPECT_EQ(change_to(changes, 200)->first_new_us, 110u);
  EXPECT_FALSE(change_to(changes, 150).has_value());
  EXPECT_FALSE(change_to(changes, 50).has_value());
  EXPECT_FALSE(change_to({}, 100).has_value());
}

TEST(EdgeStaleness, FlatTraceGivesPowerTimesSpanAndTimingBound) {
  // Update seen between 1.000 s and 1.004 s (middle 1.002 s); edge at 1.052 s; 500 W throughout.
  const auto trace = ramp(900'000, 1'200'000, 500.0, 500.0);
  auto s = edge_staleness(CounterChange{1'000'000, 1'004'000, 7}, 1'052'000, Watts{500.0}, trace, 40'000);
  ASSERT_TRUE(s.has_value()) << s.error().describe();
  EXPECT_EQ(s->update_us, 1'002'000u);
  EXPECT_NEAR(s->energy.value, 500.0 * 0.050, 1e-9);
  EXPECT_NEAR(s->uncertainty.value, 500.0 * 0.002, 1e-9);  // flat: no spread term
}

TEST(EdgeStaleness, ChangingPowerWidensTheBoundByTheSpread) {
  // 100 W at 0.9 s rising to 400 W at 1.2 s: samples around the 50-ms span differ by the ramp.
  const auto trace = ramp(900'000, 1'200'000, 100.0, 400.0);
  auto s = edge_staleness(CounterChange{1'000'000, 1'000'000, 7}, 1'050'000, Watts{250.0}, trace, 20'000);
  ASSERT_TRUE(s.has_value());
  // Linear ramp 1 W/ms: power 200 W at 1.000 s, 250 W at 1.050 s → 11.25 J.
  EXPECT_NEAR(s->energy.value, 11.25, 1e-9);
  // Samples from 0.98 to 1.06 s: 180 … 260 W; spread 80 W × 0.05 s = 4 J; no timing term.
  EXPECT_NEAR(s->uncertainty.value, 4.0, 1e-9);
}

TEST(EdgeStaleness, EdgeReadThatSawTheChangeHasNoStalenessOnlyTiming) {
  const auto trace = ramp(900'000, 1'200'000, 300.0, 300.0);
  auto s = edge_staleness(CounterChange{1'000'000, 1'006'000, 7}, 1'002'000, Watts{300.0}, trace, 40'000);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->update_us, 1'002'000u);  // the middle would be 1.003 s, after the edge: held to it
  EXPECT_DOUBLE_EQ(s->energy.value, 0.0);
  EXPECT_NEAR(s->uncertainty.value, 300.0 * 0.003, 1e-9);
}

TEST(EdgeStaleness, TraceThatEndsBeforeTheEdgeIsUnavailable) {
  const auto trace = ramp(900'000, 1'000'000, 300.0, 300.0);
  auto s = edge_staleness(CounterChange{990'000, 1'000'000, 7}, 1'200'000, Watts{300.0}, trace, 40'000);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().code(), ErrorCode::unavailable);
  EXPECT_NE(s.error().message().find("does not cover"), std::string::npos);
}

TEST(EdgeStaleness, ChangeSeenBeforeItsOldValueIsRejected) {
  auto s = edge_staleness(CounterChange{2'000'000, 1'000'000, 7}, 2'100'000, Watts{300.0}, {}, 40'000);
  ASSERT_FALSE(s.has_value());
  EXPECT_EQ(s.error().code(), ErrorCode::internal);
}

}  // namespace
}  // namespace ecocompute::meter
