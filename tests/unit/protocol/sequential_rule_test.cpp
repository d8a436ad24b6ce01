// The stopping rule `measure` and `measure-endpoint` share: its bounds, named as each caller names them,
// and the per-look confidence.
#include "protocol/sequential_rule.hpp"

#include <cmath>
#include <limits>

#include <gtest/gtest.h>

namespace ecocompute::protocol {
namespace {

constexpr SequentialRuleNames kFlags{"--target-ci", "--min-trials", "-k"};

std::string message_of(const SequentialRule& rule) {
  const auto checked = check_sequential_rule(rule, kFlags);
  return checked ? "" : checked.error().message();
}

TEST(SequentialRule, BoundsAreCheckedOnlyWithATargetAndNamedAsTheCallerNamesThem) {
  EXPECT_TRUE(check_sequential_rule({std::nullopt, 0, 1}, kFlags).has_value()) << "no target: nothing to check";
  EXPECT_TRUE(check_sequential_rule({2.0, 3, 12}, kFlags).has_value());
  EXPECT_TRUE(check_sequential_rule({100.0, 2, 2}, kFlags).has_value());

  for (double bad : {0.0, -1.0, 100.5, std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::infinity()}) {
    EXPECT_EQ(message_of({bad, 3, 12}).rfind("--target-ci: ", 0), 0u) << bad;
  }
  EXPECT_NE(message_of({2.0, 1, 12}).find("--min-trials: 1; with --target-ci it must be at least 2"), std::string::npos);
  EXPECT_NE(message_of({2.0, 13, 12}).find("at most -k (12)"), std::string::npos) << message_of({2.0, 13, 12});
  const auto fields = check_sequential_rule({2.0, 13, 12}, {"target_ci_pt", "min_trials", "trials"});
  ASSERT_FALSE(fields.has_value());
  EXPECT_EQ(fields.error().message().rfind("min_trials: 13; with target_ci_pt", 0), 0u) << fields.error().message();
}

TEST(SequentialRule, EachLookIsWidenedForTheNumberOfLooks) {
  EXPECT_DOUBLE_EQ(sequential_rule_confidence({std::nullopt, 3, 12}), 0.95);
  // Looks after blocks 3 … 12: ten looks, 1 − 0.05 / 10.
  EXPECT_NEAR(sequential_rule_confidence({2.0, 3, 12}), 0.995, 1e-12);
  EXPECT_NEAR(sequential_rule_confidence({2.0, 3, 3}), 0.95, 1e-12) << "one look is a plain interval";
}

}  // namespace
}  // namespace ecocompute::protocol
