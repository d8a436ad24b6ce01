// CpuBudget counts the thread's processor time, and its check on the wall clock never hides a spent budget.
#include "util/cpu_budget.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

namespace ecocompute {
namespace {

using std::chrono::milliseconds;

// Burns processor time on this thread until it has used `amount` more.
void spend(std::chrono::nanoseconds amount) {
  const auto until = thread_cpu_time() + amount;
  volatile double sink = 0;
  while (thread_cpu_time() < until) {
    for (int i = 0; i < 1000; ++i) sink = sink + i;
  }
}

TEST(CpuBudget, TimeSpentWaitingIsNotSpent) {
  const CpuBudget budget(milliseconds(5));
  std::this_thread::sleep_for(milliseconds(40));
  EXPECT_LT(budget.used(), milliseconds(5));
  EXPECT_FALSE(budget.exhausted());
}

TEST(CpuBudget, ABudgetSpentBeforeACheckIsSeenByThatCheck) {
  const CpuBudget budget(milliseconds(3));
  EXPECT_FALSE(budget.exhausted());
  spend(milliseconds(4));
  EXPECT_TRUE(budget.exhausted());
}

// At every check: when the time used before the check is over the limit, the check says so, whatever
// the checks before it read (the wall-clock bound may skip the CPU clock only while it cannot be over).
TEST(CpuBudget, NoCheckAfterTheLimitSaysTheBudgetIsLeft) {
  const milliseconds limit(6);
  const CpuBudget budget(limit);
  int checks_over = 0;
  for (int i = 0; i < 200'000 && checks_over < 50; ++i) {
    const auto before = budget.used();
    const bool exhausted = budget.exhausted();
    if (before > limit) {
      ASSERT_TRUE(exhausted) << "check " << i << " after " << before.count() << " ns used";
      ++checks_over;
    }
    if (i % 7 == 0) std::this_thread::sleep_for(std::chrono::microseconds(50));  // wall time passing unused
    spend(std::chrono::microseconds(20));
  }
  EXPECT_EQ(checks_over, 50);
}

}  // namespace
}  // namespace ecocompute
