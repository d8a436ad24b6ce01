// Tests of RateLimiter with a hand-driven clock.
#include "server/rate_limiter.hpp"

#include <gtest/gtest.h>

#include "server_test_support.hpp"

namespace ecocompute::server {
namespace {

using testing::ManualClock;

TEST(RateLimiter, AllowsTheBurstThenAsksToWait) {
  auto clock = std::make_shared<ManualClock>();
  RateLimiter limiter(60, clock);  // 60/min = 1 token per second, burst 60
  for (int i = 0; i < 60; ++i) EXPECT_EQ(limiter.acquire("a"), 0) << i;
  // The 61st needs one whole token: 1 s at 1 token/s.
  EXPECT_EQ(limiter.acquire("a"), 1);
  // Another client has its own bucket.
  EXPECT_EQ(limiter.acquire("b"), 0);
}

TEST(RateLimiter, RefillsWithTime) {
  auto clock = std::make_shared<ManualClock>();
  RateLimiter limiter(6, clock);  // 6/min = 0.1 token/s
  for (int i = 0; i < 6; ++i) EXPECT_EQ(limiter.acquire("a"), 0);
  // Empty bucket: a token takes 1 / 0.1 = 10 s.
  EXPECT_EQ(limiter.acquire("a"), 10);
  clock->sleep_for(Seconds{5.0});  // 0.5 token: 5 s still missing
  EXPECT_EQ(limiter.acquire("a"), 5);
  clock->sleep_for(Seconds{5.0});  // 1.0 token
  EXPECT_EQ(limiter.acquire("a"), 0);
}

TEST(RateLimiter, ZeroDisablesTheLimit) {
  RateLimiter limiter(0);
  for (int i = 0; i < 10000; ++i) ASSERT_EQ(limiter.acquire("a"), 0);
}

}  // namespace
}  // namespace ecocompute::server
