// The default thread count leaves a core to the host and never exceeds the cores left free.
#include "engine/thread_count.hpp"

#include <algorithm>
#include <cmath>
#include <thread>

#include <gtest/gtest.h>

namespace ecocompute::engine {
namespace {

TEST(DefaultThreadCount, LeavesOneCoreToTheHost) {
  EXPECT_EQ(default_thread_count(16, 0.0), 15);
  EXPECT_EQ(default_thread_count(2, 0.0), 1);
}

TEST(DefaultThreadCount, TakesNoMoreThanTheCoresTheLoadLeavesFree) {
  EXPECT_EQ(default_thread_count(16, 6.2), 10);
  EXPECT_EQ(default_thread_count(16, 6.6), 9);
  // Two cores, one busy elsewhere: one thread (two collapsed to 22–35 s per fixture iteration).
  EXPECT_EQ(default_thread_count(2, 1.0), 1);
}

TEST(DefaultThreadCount, IsAtLeastOneWhateverTheInput) {
  EXPECT_EQ(default_thread_count(1, 0.0), 1);
  EXPECT_EQ(default_thread_count(0, 0.0), 1);
  EXPECT_EQ(default_thread_count(8, 40.0), 1);
  EXPECT_EQ(default_thread_count(8, -3.0), 7);
  EXPECT_EQ(default_thread_count(8, std::nan("")), 7);
}

TEST(DefaultThreadCount, OfThisMachineIsInItsRange) {
  const int n = default_thread_count();
  EXPECT_GE(n, 1);
  EXPECT_LE(static_cast<unsigned>(n), std::max(1U, std::thread::hardware_concurrency()));
}

}  // namespace
}  // namespace ecocompute::engine
