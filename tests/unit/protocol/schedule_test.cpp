// Schedule tests: balance of the alternating order, seeded shuffles, the printed plan.
#include "protocol/schedule.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace ecocompute::protocol {
namespace {

std::vector<Condition> three_conditions() {
  return {{0, "F16", true, 0}, {1, "Q8_0", false, 0}, {2, "Q4_K_M", false, 0}};
}

std::vector<std::size_t> order_of(const Schedule& schedule) {
  std::vector<std::size_t> order;
  for (const ScheduledTrial& t : schedule.trials) order.push_back(t.condition);
  return order;
}

TEST(Schedule, AlternatingBlocksReverseEveryOtherBlock) {
  const Schedule s = Schedule::make(three_conditions(), 4, ScheduleOrder::alternating, 7);
  EXPECT_EQ(order_of(s), (std::vector<std::size_t>{0, 1, 2, 2, 1, 0, 0, 1, 2, 2, 1, 0}));
  EXPECT_EQ(s.seed, 7u);
  EXPECT_EQ(s.blocks, 4);
  EXPECT_EQ(s.n_conditions, 3u);
  for (std::size_t i = 0; i < s.trials.size(); ++i) {
    EXPECT_EQ(s.trials[i].index, i);
    EXPECT_EQ(s.trials[i].block, static_cast<int>(i / 3));
    EXPECT_EQ(s.trials[i].repetition, s.trials[i].block);
    EXPECT_EQ(s.trials[i].position, static_cast<int>(i % 3));
  }
}

TEST(Schedule, AlternatingIsBalancedOverPairsOfBlocks) {
  // Positions of each condition over 4 blocks: F16 0+2+0+2 = 4, Q8_0 1+1+1+1 = 4, Q4_K_M 2+0+2+0 = 4.
  const Schedule s = Schedule::make(three_conditions(), 4, ScheduleOrder::alternating, 0);
  std::map<std::size_t, int> position_sum;
  std::map<std::size_t, int> count;
  for (const ScheduledTrial& t : s.trials) {
    position_sum[t.condition] += t.position;
    ++count[t.condition];
  }
  for (std::size_t c = 0; c < 3; ++c) {
    EXPECT_EQ(position_sum[c], 4) << c;
    EXPECT_EQ(count[c], 4) << c;
  }
}

TEST(Schedule, ShuffledIsSeededAndEachBlockIsAPermutation) {
  const Schedule a = Schedule::make(three_conditions(), 10, ScheduleOrder::shuffled, 12345);
  const Schedule b = Schedule::make(three_conditions(), 10, ScheduleOrder::shuffled, 12345);
  const Schedule c = Schedule::make(three_conditions(), 10, ScheduleOrder::shuffled, 54321);
  EXPECT_EQ(order_of(a), order_of(b));
  EXPECT_NE(order_of(a), order_of(c));
  for (int block = 0; block < 10; ++block) {
    std::vector<std::size_t> members;
    for (const ScheduledTrial& t : a.trials) {
      if (t.block == block) members.push_back(t.condition);
    }
    std::sort(members.begin(), members.end());
    EXPECT_EQ(members, (std::vector<std::size_t>{0, 1, 2})) << block;
  }
  // Ten blocks of three conditions cannot all come out in the same order for this seed.
  const std::vector<std::size_t> order = order_of(a);
  const std::vector<std::size_t> first(order.begin(), order.begin() + 3);
  bool all_same = true;
  for (std::size_t block = 1; block < 10; ++block) {
    const std::vector<std::size_t> this_block(order.begin() + static_cast<std::ptrdiff_t>(block * 3),
                                              order.begin() + static_cast<std::ptrdiff_t>(block * 3 + 3));
    all_same = all_same && this_block == first;
  }
  EXPECT_FALSE(all_same);
}

TEST(Schedule, SingleConditionSingleBlock) {
  const std::vector<Condition> one{{0, "F16", true, 0}};
  const Schedule s = Schedule::make(one, 1, ScheduleOrder::shuffled, 3);
  ASSERT_EQ(s.trials.size(), 1u);
  EXPECT_EQ(s.trials[0].condition, 0u);
}

TEST(Schedule, DescribePrintsThePlan) {
  const std::vector<Condition> conditions = three_conditions();
  const Schedule s = Schedule::make(conditions, 2, ScheduleOrder::alternating, 99);
  EXPECT_EQ(s.describe(conditions),
            "plan: 3 conditions (F16 (baseline), Q8_0, Q4_K_M) × 2 trials = 6 trials, order alternating, seed 99\n"
            "  block 1: F16 Q8_0 Q4_K_M\n"
            "  block 2: Q4_K_M Q8_0 F16");
}

TEST(Schedule, EmptyConditionsAreABrokenInvariant) {
  EXPECT_THROW((void)Schedule::make({}, 3, ScheduleOrder::alternating, 0), InvariantError);
  EXPECT_THROW((void)Schedule::make(three_conditions(), 0, ScheduleOrder::alternating, 0), InvariantError);
}

}  // namespace
}  // namespace ecocompute::protocol
