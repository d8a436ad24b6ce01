// Tests of the between-session spread (DerSimonian–Laird) that widens bands drawn from one session.
#include "data/session_spread.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace ecocompute::data {
namespace {

TEST(SessionSpread, DerSimonianLairdByHand) {
  // y = 0, 10 with variances 1, 1: w = 1, 1; ȳ = 5; Q = 25 + 25 = 50; τ² = (50 − 1) / (2 − 2/2) = 49.
  const std::vector<SessionValue> two{{"a", 0, 1}, {"b", 10, 1}};
  ASSERT_TRUE(dersimonian_laird_tau2(two));
  EXPECT_DOUBLE_EQ(*dersimonian_laird_tau2(two), 49.0);
  // Unequal variances: w = 1, 0.25; ȳ = (0 + 2.5)/1.25 = 2; Q = 4 + 0.25·64 = 20;
  // Σw − Σw²/Σw = 1.25 − 1.0625/1.25 = 0.4; τ² = 19 / 0.4 = 47.5.
  const std::vector<SessionValue> uneven{{"a", 0, 1}, {"b", 10, 4}};
  EXPECT_NEAR(*dersimonian_laird_tau2(uneven), 47.5, 1e-12);
}

TEST(SessionSpread, AgreeingSessionsAddNothing) {
  // Scatter within what the variances explain: Q < k − 1, τ² = 0.
  const std::vector<SessionValue> close{{"a", 1.0, 4}, {"b", 1.5, 4}, {"c", 0.5, 4}};
  EXPECT_DOUBLE_EQ(*dersimonian_laird_tau2(close), 0.0);
}

TEST(SessionSpread, UndefinedWithoutTwoSessionsOrWithoutVariances) {
  const std::vector<SessionValue> one{{"a", 1.0, 1}};
  EXPECT_FALSE(dersimonian_laird_tau2(one));
  const std::vector<SessionValue> no_variance{{"a", 1.0, 0}, {"b", 2.0, 1}};
  EXPECT_FALSE(dersimonian_laird_tau2(no_variance));
}

}  // namespace
}  // namespace ecocompute::data
