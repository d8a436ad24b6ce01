// Schedule: balanced interleaved blocks (alternating reversed, or seeded shuffles) and the plan text.
#include "protocol/schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>

#include "util/check.hpp"

namespace ecocompute::protocol {

namespace {

// Uniform integer in [0, n) by rejection, so the result depends only on the mt19937_64 stream
// (whose output the standard fixes) and not on a library's uniform_int_distribution.
std::uint64_t uniform_below(std::mt19937_64& rng, std::uint64_t n) {
  const std::uint64_t max = std::numeric_limits<std::uint64_t>::max();
  const std::uint64_t limit = max - max % n;
  std::uint64_t x = rng();
  while (x >= limit) x = rng();
  return x % n;
}

}  // namespace

Schedule Schedule::make(std::span<const Condition> conditions, int blocks, ScheduleOrder order,
                        std::uint64_t seed) {
  ECO_CHECK(!conditions.empty(), "a schedule needs at least one condition");
  ECO_CHECK(blocks >= 1, "a schedule needs at least one block");
  Schedule schedule;
  schedule.order = order;
  schedule.seed = seed;
  schedule.blocks = blocks;
  schedule.n_conditions = conditions.size();

  std::mt19937_64 rng(seed);
  std::vector<std::size_t> block_order(conditions.size());
  for (int block = 0; block < blocks; ++block) {
    std::iota(block_order.begin(), block_order.end(), std::size_t{0});
    if (order == ScheduleOrder::alternating) {
      // B C1 C2 | C2 C1 B | B C1 C2 …: over each pair of blocks every condition's mean position is
      // the same, so a drift (warming, clock changes) cannot favour one precision.
      if (block % 2 == 1) std::reverse(block_order.begin(), block_order.end());
    } else {
      // Fisher–Yates, one stream for the whole run.
      for (std::size_t i = block_order.size(); i > 1; --i) {
        std::swap(block_order[i - 1], block_order[uniform_below(rng, i)]);
      }
    }
    for (std::size_t position = 0; position < block_order.size(); ++position) {
      schedule.trials.push_back(ScheduledTrial{schedule.trials.size(), conditions[block_order[position]].index,
                                               block, block, static_cast<int>(position)});
    }
  }
  return schedule;
}

std::string Schedule::describe(std::span<const Condition> conditions) const {
  std::string names;
  for (const Condition& condition : conditions) {
    if (!names.empty()) names += ", ";
    names += condition.label();
    if (condition.is_baseline) names += " (baseline)";
  }
  std::string text = fmt::format("plan: {} conditions ({}) × {} trials = {} trials, order {}, seed {}",
                                 conditions.size(), names, blocks, trials.size(), to_string(order), seed);
  int current_block = -1;
  for (const ScheduledTrial& trial : trials) {
    if (trial.block != current_block) {
      current_block = trial.block;
      text += fmt::format("\n  block {}:", current_block + 1);
    }
    const Condition* condition = nullptr;
    for (const Condition& c : conditions) {
      if (c.index == trial.condition) condition = &c;
    }
    text += " " + (condition ? condition->label() : fmt::format("#{}", trial.condition));
  }
  return text;
}

}  // namespace ecocompute::protocol
