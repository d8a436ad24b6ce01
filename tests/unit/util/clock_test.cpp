// Tests of the one clock: the system clock moves forward, sleeps, and formats UTC as the reports do.
#include "util/clock.hpp"

#include <gtest/gtest.h>

#include <regex>

namespace ecocompute {
namespace {

TEST(Clock, FormatsUtcAsTheReportsWriteIt) {
  EXPECT_EQ(Clock::format_utc(0), "1970-01-01T00:00:00Z");
  // 2026-11-29T17:02:03Z = 1795971723 s since the epoch; microseconds are cut, not rounded.
  EXPECT_EQ(Clock::format_utc(1795971723ULL * 1000000ULL + 999999ULL), "2026-11-29T17:02:03Z");
}

TEST(Clock, SystemClockSleepsAndMovesForward) {
  const std::shared_ptr<Clock> clock = system_clock();
  const Seconds before = clock->now();
  clock->sleep_for(Seconds{0.02});
  clock->sleep_for(Seconds{-1.0});  // returns at once
  EXPECT_GE((clock->now() - before).value, 0.02);
  EXPECT_TRUE(std::regex_match(utc_now(), std::regex(R"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)"))) << utc_now();
  EXPECT_EQ(system_clock().get(), clock.get());  // one clock for the process
}

// A fake clock only has to say where it is; utc_now() follows its wall time.
class FixedClock final : public Clock {
 public:
  [[nodiscard]] Seconds now() const override { return Seconds{5.0}; }
  [[nodiscard]] std::uint64_t wall_us() const override { return 86400ULL * 1000000ULL; }
  void sleep_for(Seconds) override {}
};

TEST(Clock, UtcNowFollowsTheClocksWallTime) {
  EXPECT_EQ(FixedClock().utc_now(), "1970-01-02T00:00:00Z");
}

}  // namespace
}  // namespace ecocompute
