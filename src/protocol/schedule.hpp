// Schedule: the seeded, interleaved order of (condition, repetition) pairs; the seed is reported.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "protocol/condition.hpp"
#include "protocol/design.hpp"

namespace ecocompute::protocol {

/// One trial of the plan.
struct ScheduledTrial {
  std::size_t index = 0;      ///< position in the run order (0-based)
  std::size_t condition = 0;  ///< Condition::index
  int repetition = 0;         ///< 0-based; the n-th trial of this condition
  int block = 0;              ///< 0-based; every block holds each condition once (repetition == block)
  int position = 0;           ///< 0-based position inside its block
};

/// The order in which trials run. Every condition appears once per block, so a candidate's trial is
/// paired with the baseline trial of its block; alternating blocks are reversed (ABBA-like) so each
/// condition's mean position in the run is balanced over pairs of blocks.
struct Schedule {
  ScheduleOrder order = ScheduleOrder::alternating;
  std::uint64_t seed = 0;      ///< the seed used (also for `alternating`, which draws nothing)
  int blocks = 0;              ///< = trials per condition
  std::size_t n_conditions = 0;
  std::vector<ScheduledTrial> trials;

  /// Builds the plan for `conditions` × `blocks`. `shuffled` permutes each block with a
  /// platform-independent Fisher–Yates over std::mt19937_64(seed), so a seed gives the same order
  /// everywhere. Throws InvariantError when conditions is empty or blocks < 1 (validate() first).
  [[nodiscard]] static Schedule make(std::span<const Condition> conditions, int blocks,
                                     ScheduleOrder order, std::uint64_t seed);

  /// Returns the plan as text for the log: conditions, blocks, order, seed and the run order, e.g.
  /// "block 1: F16 Q8_0 Q4_K_M | block 2: Q4_K_M Q8_0 F16 | …".
  [[nodiscard]] std::string describe(std::span<const Condition> conditions) const;
};

}  // namespace ecocompute::protocol
