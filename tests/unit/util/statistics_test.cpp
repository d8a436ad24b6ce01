// Statistics tests against hand-computed values (arithmetic in the comments).
#include "util/statistics.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "util/check.hpp"

namespace ecocompute {
namespace {

TEST(Summarize, PublishedInt8ReplicatesOfQwen2HalfB) {
  // rtx4090_2026-08-20_int8_replicates.csv, Qwen2-0.5B INT8, ΔE % of the three replicates.
  const std::vector<double> delta{595.05, 578.26, 570.56};
  const Summary s = summarize(delta);
  // mean = (595.05 + 578.26 + 570.56) / 3 = 1743.87 / 3 = 581.29
  EXPECT_EQ(s.n, 3u);
  EXPECT_NEAR(s.mean, 581.29, 1e-9);
  // deviations 13.76, −3.03, −10.73; squares 189.3376 + 9.1809 + 115.1329 = 313.6514;
  // SD = √(313.6514 / 2) = √156.8257 = 12.523007 (the published 12.52)
  ASSERT_TRUE(s.sd.has_value());
  EXPECT_NEAR(*s.sd, 12.523006827435653, 1e-9);
  // CV = 12.523007 / 581.29 × 100 = 2.154348 %
  EXPECT_NEAR(*s.cv_pct, 2.15434754209356, 1e-9);
  // half-width = t(0.975, 2) · SD / √3 = 4.302653 × 12.523007 / 1.732051 = 31.108874
  EXPECT_NEAR(*s.ci_half_width, 31.108873524539764, 1e-6);
  EXPECT_NEAR(*s.ci_low, 581.29 - 31.108873524539764, 1e-6);
  EXPECT_NEAR(*s.ci_high, 581.29 + 31.108873524539764, 1e-6);
}

TEST(Summarize, TooFewValuesLeaveSpreadAndIntervalEmpty) {
  const Summary none = summarize(std::vector<double>{});
  EXPECT_EQ(none.n, 0u);
  EXPECT_EQ(none.mean, 0.0);
  EXPECT_FALSE(none.sd.has_value());
  const Summary one = summarize(std::vector<double>{42.0});
  EXPECT_EQ(one.n, 1u);
  EXPECT_EQ(one.mean, 42.0);
  EXPECT_FALSE(one.sd.has_value());
  EXPECT_FALSE(one.ci_half_width.has_value());
}

TEST(Summarize, LargeCommonOffsetDoesNotCancel) {
  // 1e9 + {1, 2, 3}: mean 1e9 + 2, SD 1 exactly (deviations −1, 0, 1; (1 + 0 + 1) / 2 = 1).
  const Summary s = summarize(std::vector<double>{1e9 + 1, 1e9 + 2, 1e9 + 3});
  EXPECT_DOUBLE_EQ(*s.sd, 1.0);
}

TEST(Summarize, OtherConfidenceLevel) {
  // n = 4, values 1..4: mean 2.5, SD √(5/3) = 1.290994; t(0.95, 3) = 2.353363 (90 % two-sided, tables);
  // half-width = 2.353363 × 1.290994 / 2 = 1.519090
  const Summary s = summarize(std::vector<double>{1, 2, 3, 4}, 0.90);
  EXPECT_NEAR(*s.ci_half_width, 1.519090, 1e-6);
  EXPECT_EQ(s.confidence, 0.90);
}

TEST(StudentT, CriticalValuesFromTables) {
  // df 1: tan(π (0.975 − 0.5)) = 12.706205; df 2: (2p − 1) / √(2p(1 − p)) = 0.95 / √0.04875 = 4.302653
  EXPECT_NEAR(student_t_critical(0.95, 1), 12.706204736174696, 1e-9);
  EXPECT_NEAR(student_t_critical(0.95, 2), 4.302652729749462, 1e-9);
  // printed tables: t(0.975, 9) = 2.262157, t(0.995, 5) = 4.032143
  EXPECT_NEAR(student_t_critical(0.95, 9), 2.262157, 5e-7);
  EXPECT_NEAR(student_t_critical(0.99, 5), 4.032143, 5e-7);
}

TEST(DeltaPct, SignedPositiveCosts) {
  // (8219.999 − 1182.642) / 1182.642 × 100 = 595.05 % (published, rounded to 2 dp)
  EXPECT_NEAR(delta_pct(8219.999, 1182.642), 595.05, 0.005);
  EXPECT_DOUBLE_EQ(delta_pct(75.0, 100.0), -25.0);
}

TEST(StudentT, RefusesWhatHasNoDistribution) {
  EXPECT_THROW((void)student_t_critical(0.95, 0), InvariantError);
  EXPECT_THROW((void)student_t_critical(1.0, 3), InvariantError);
  EXPECT_THROW((void)delta_pct(1.0, 0.0), InvariantError);
}

}  // namespace
}  // namespace ecocompute
