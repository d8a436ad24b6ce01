#include "protocol/sequential_rule.hpp"

#include <cmath>

#include <fmt/format.h>

#include "util/defaults.hpp"
#include "util/statistics.hpp"

namespace ecocompute::protocol {

Result<void> check_sequential_rule(const SequentialRule& rule, const SequentialRuleNames& names) {
  if (!rule.target_ci_pt) return {};
  const double target = *rule.target_ci_pt;
  if (!(std::isfinite(target) && target > 0.0 && target <= 100.0)) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("{}: {}; must be a half-width in percentage points, > 0 and ≤ 100", names.target_ci,
                                  target));
  }
  if (rule.min_trials < 2 || rule.min_trials > rule.trials) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("{}: {}; with {} it must be at least 2 (a CI needs two pairs) and at most {} ({}), "
                                  "the most blocks the run may take",
                                  names.min_trials, rule.min_trials, names.target_ci, names.trials, rule.trials));
  }
  return {};
}

double sequential_rule_confidence(const SequentialRule& rule) {
  if (!rule.target_ci_pt) return defaults::ci_confidence;
  return confidence_per_look(rule.trials - rule.min_trials + 1);
}

}  // namespace ecocompute::protocol
