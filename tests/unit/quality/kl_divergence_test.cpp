// Tests of the log-softmax arithmetic against hand-computed values.
#include "quality/kl_divergence.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <limits>
#include <vector>

namespace ecocompute::quality {
namespace {


TEST(KlDivergence, SummaryOfNormalisedLogitsHasZeroLogSumExp) {
  // ln(¼) + … : Σ exp = ¼ + ½ + ¼ = 1 → log-sum-exp 0; argmax token 1.
  const std::vector<float> z{static_cast<float>(std::log(0.25)), static_cast<float>(std::log(0.5)),
                             static_cast<float>(std::log(0.25))};
  auto s = summarize_logits(z);
  ASSERT_TRUE(s.has_value());
  EXPECT_NEAR(s->log_sum_exp, 0.0, 1e-7);
  EXPECT_EQ(s->argmax, 1);
  // NLL of token 0: −ln ¼ = 2·ln2 = 1.386294.
  EXPECT_NEAR(negative_log_likelihood(z, s->log_sum_exp, 0), 2 * std::numbers::ln2, 1e-6);
}

TEST(KlDivergence, LargeLogitsDoNotOverflow) {
  // exp(1000) overflows a double; log(e^1000 + e^1000) = 1000 + ln2 = 1000.693147.
  auto s = summarize_logits(std::vector<float>{1000.0f, 1000.0f, -1000.0f});
  ASSERT_TRUE(s.has_value());
  EXPECT_NEAR(s->log_sum_exp, 1000.0 + std::numbers::ln2, 1e-9);
  EXPECT_EQ(s->argmax, 0);  // tie: the lowest id
}

TEST(KlDivergence, NonFiniteOrEmptyLogitsAreErrors) {
  auto nan = summarize_logits(std::vector<float>{0.0f, std::numeric_limits<float>::quiet_NaN()});
  ASSERT_FALSE(nan.has_value());
  EXPECT_EQ(nan.error().code(), ErrorCode::invalid_input);
  EXPECT_NE(nan.error().message().find("token 1"), std::string::npos);
  EXPECT_FALSE(
      summarize_logits(std::vector<float>{0.0f, std::numeric_limits<float>::infinity()}).has_value());
  EXPECT_FALSE(summarize_logits(std::vector<float>{}).has_value());
}

TEST(KlDivergence, HandComputedValue) {
  // P = (¼, ½, ¼), Q = (½, ¼, ¼): KL = ¼ ln(¼/½) + ½ ln(½/¼) + ¼ ln 1 = −¼ln2 + ½ln2 = ln2/4 = 0.173287.
  const std::vector<float> p{static_cast<float>(std::log(0.25)), static_cast<float>(std::log(0.5)),
                             static_cast<float>(std::log(0.25))};
  const std::vector<float> q{static_cast<float>(std::log(0.5)), static_cast<float>(std::log(0.25)),
                             static_cast<float>(std::log(0.25))};
  const double lse_p = summarize_logits(p)->log_sum_exp;
  const double lse_q = summarize_logits(q)->log_sum_exp;
  EXPECT_NEAR(kl_divergence(p, lse_p, q, lse_q), std::numbers::ln2 / 4, 1e-7);
  // These rows are each other with tokens 0 and 1 swapped, so KL(Q‖P) = ½ ln 2 + ¼ ln ½ = ln2/4 too.
  EXPECT_NEAR(kl_divergence(q, lse_q, p, lse_p), std::numbers::ln2 / 4, 1e-7);
  // Shifting every logit of Q by a constant changes nothing.
  std::vector<float> shifted = q;
  for (float& z : shifted) z += 5.0f;
  EXPECT_NEAR(kl_divergence(p, lse_p, shifted, summarize_logits(shifted)->log_sum_exp), std::numbers::ln2 / 4, 1e-6);
}

TEST(KlDivergence, AsymmetricCase) {
  // P = (½, ½), Q = (¾, ¼): KL(P‖Q) = ½ ln(⅔) + ½ ln 2 = ½ ln(4/3) = 0.143841;
  // KL(Q‖P) = ¾ ln(3/2) + ¼ ln(½) = 0.304099 − 0.173287 = 0.130812.
  const std::vector<float> p{0.0f, 0.0f};
  const std::vector<float> q{static_cast<float>(std::log(0.75)), static_cast<float>(std::log(0.25))};
  const double lse_p = summarize_logits(p)->log_sum_exp;
  const double lse_q = summarize_logits(q)->log_sum_exp;
  EXPECT_NEAR(kl_divergence(p, lse_p, q, lse_q), 0.5 * std::log(4.0 / 3.0), 1e-7);
  EXPECT_NEAR(kl_divergence(q, lse_q, p, lse_p), 0.75 * std::log(1.5) - 0.25 * std::numbers::ln2, 1e-7);
}

TEST(KlDivergence, IdenticalLogitsGiveExactlyZero) {
  const std::vector<float> z{0.3f, -1.7f, 2.25f, 0.0f};
  const double lse = summarize_logits(z)->log_sum_exp;
  EXPECT_EQ(kl_divergence(z, lse, z, lse), 0.0);
}

}  // namespace
}  // namespace ecocompute::quality
