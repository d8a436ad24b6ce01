// Tests of compensated sums, mean ± standard error and quantiles against hand-computed values.
#include "quality/token_statistics.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace ecocompute::quality {
namespace {

TEST(CompensatedSum, RecoversWhatPlainAdditionLoses) {
  // 1e16 + 1 rounds to 1e16 in a double (ulp 2); Neumaier keeps the 1: (1e16 + 1 − 1e16) = 1.
  CompensatedSum sum;
  sum.add(1e16);
  sum.add(1.0);
  sum.add(-1e16);
  EXPECT_EQ(sum.value(), 1.0);
  double plain = 1e16;
  plain += 1.0;
  plain += -1e16;
  EXPECT_EQ(plain, 0.0);  // the loss the compensation prevents
}

TEST(MeanEstimate, HandComputed) {
  // (1, 2, 1): mean 4/3; deviations (−⅓, ⅔, −⅓), Σ² = ⅔, variance (ddof 1) ⅓, SE = √(⅓/3) = ⅓.
  const std::vector<double> v{1.0, 2.0, 1.0};
  const Estimate e = mean_estimate(v);
  EXPECT_DOUBLE_EQ(e.value, 4.0 / 3.0);
  EXPECT_DOUBLE_EQ(e.standard_error, 1.0 / 3.0);
}

TEST(MeanEstimate, SmallSamples) {
  EXPECT_EQ(mean_estimate(std::vector<double>{}).value, 0.0);
  const Estimate one = mean_estimate(std::vector<double>{2.5});
  EXPECT_EQ(one.value, 2.5);
  EXPECT_EQ(one.standard_error, 0.0);
}

TEST(MeanEstimate, LargeOffsetDoesNotCancel) {
  // 1e9 + (0, 1, 2, 3): mean 1e9 + 1.5; SD = √(5/3) = 1.290994; SE = SD/2 = 0.645497.
  const std::vector<double> v{1e9, 1e9 + 1, 1e9 + 2, 1e9 + 3};
  const Estimate e = mean_estimate(v);
  EXPECT_DOUBLE_EQ(e.value, 1e9 + 1.5);
  EXPECT_NEAR(e.standard_error, 0.6454972, 1e-7);
}

TEST(Quantile, LinearInterpolationBetweenOrderStatistics) {
  // (1, 2, 3, 4): h = 3q. q = ½ → h 1.5 → 2.5; q = 0.99 → h 2.97 → 3.97; the ends are min and max.
  const std::vector<double> v{4.0, 1.0, 3.0, 2.0};
  EXPECT_DOUBLE_EQ(quantile(v, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(quantile(v, 0.99), 3.97);
  EXPECT_DOUBLE_EQ(quantile(v, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(quantile(v, 1.0), 4.0);
  EXPECT_EQ(quantile({}, 0.99), 0.0);
  EXPECT_EQ(quantile({7.0}, 0.99), 7.0);
}

}  // namespace
}  // namespace ecocompute::quality
