// The sequential stopping rule that `measure` (Design) and `measure-endpoint` (SweepDesign) share:
// from block min_trials on, after each block, stop once every candidate's paired ΔE CI is within
// ± target_ci_pt; `trials` blocks at most. Looking more than once makes a plain 95 % interval too
// short, so every interval of such a run is at confidence_per_look over its looks.
#pragma once

#include <optional>
#include <string_view>

#include "util/result.hpp"

namespace ecocompute::protocol {

struct SequentialRule {
  std::optional<double> target_ci_pt;  ///< absent: no rule, every block runs
  int min_trials = 0;                  ///< the first look follows this block
  int trials = 0;                      ///< the most blocks
};

/// How the caller's user names the three fields (flags, or design fields), for the messages.
struct SequentialRuleNames {
  std::string_view target_ci;
  std::string_view min_trials;
  std::string_view trials;
};

/// Returns a usage error naming the bad field: a target outside (0, 100] points, or a min_trials
/// below 2 (a CI needs two pairs) or above trials. Nothing to check without a target.
[[nodiscard]] Result<void> check_sequential_rule(const SequentialRule& rule, const SequentialRuleNames& names);

/// Returns the confidence of every interval the run computes: 0.95 without a target, else
/// confidence_per_look over the looks after blocks min_trials … trials.
[[nodiscard]] double sequential_rule_confidence(const SequentialRule& rule);

}  // namespace ecocompute::protocol
