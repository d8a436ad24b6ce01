// Tests of the context as a covariate of the decision model: the long-context cells in the fit, each
// answered as measured where it was measured, continuity at the baseline context, the bases around the
// measured contexts, and the answers where nothing beyond the baseline was measured.
#include <gtest/gtest.h>

#include <cmath>

#include "decide/estimate.hpp"
#include "decide/model_point.hpp"
#include "support/published_evidence.hpp"
#include "support/session_evidence.hpp"
#include "util/precision.hpp"

namespace ecocompute::decide {
namespace {

using ::ecocompute::testing::published_evidence;
using data::Basis;

EstimateRequest at(double n, const std::string& precision, int batch, int context) {
  EstimateRequest r;
  r.params_b = n;
  r.gpu = "H200";
  r.engine = "llama.cpp";
  r.precision = precision;
  r.batch = batch;
  r.context = context;
  return r;
}

TEST(ContextEffect, CovariateIsZeroAtTheBaselineAndBoundedForARatio) {
  EXPECT_EQ(context_covariate("Q4_K_M", 2048), 0.0);
  EXPECT_EQ(context_covariate("F16", 512), 0.0);
  EXPECT_DOUBLE_EQ(context_covariate("Q4_K_M", 4096), 0.5);
  EXPECT_DOUBLE_EQ(context_covariate("F16", 4096), std::log(2.0));
  EXPECT_LT(context_covariate("Q4_0", 1 << 30), 1.0);
  EXPECT_GT(context_covariate("F16", 1 << 30), 13.0);
  EXPECT_EQ(context_group(1), 0);
  EXPECT_EQ(context_group(2), 1);
  EXPECT_EQ(context_group(8), 1);
  EXPECT_EQ(context_group(9), 2);
}

// Llama-3-8B at context 4096 on the H200 (2026-12-04, k = 3; six formats at batch 1, 8, 32): every
// quantized cell is answered as measured, its measurement inside the interval for a new card, and
// listed beside the answer at its context.
TEST(ContextEffect, EveryMeasuredLongContextCellIsAnsweredMeasured) {
  int cells = 0;
  for (const data::DataRow& row : published_evidence().rows) {
    if (row.context_tokens == 0 || is_baseline_precision(row.precision) || row.basis != Basis::measured) continue;
    ++cells;
    const std::string what = row.precision + " b" + std::to_string(row.batch_size) + " ctx" + std::to_string(row.context_tokens);
    auto e = estimate(at(row.params_b, row.precision, row.batch_size, row.context_tokens), published_evidence());
    ASSERT_TRUE(e) << what << ": " << e.error().describe();
    EXPECT_EQ(e->basis, Basis::measured) << what << ": " << e->prediction.delta->basis.label;
    EXPECT_EQ(e->prediction.fp16_energy->basis.basis, Basis::measured) << what;
    EXPECT_NE(e->prediction.delta->basis.label.find("context 4096"), std::string::npos) << e->prediction.delta->basis.label;
    EXPECT_GE(row.delta_pct(), *e->ci_low_pct) << what << " " << *e->delta_pct;
    EXPECT_LE(row.delta_pct(), *e->ci_high_pct) << what << " " << *e->delta_pct;
    EXPECT_NEAR(*e->delta_pct, row.delta_pct(), 3.0) << what;
    bool listed = false;
    for (const Anchor& a : e->anchors) listed = listed || (a.context == row.context_tokens && a.batch == row.batch_size);
    EXPECT_TRUE(listed) << what;
  }
  EXPECT_EQ(cells, 15);  // five formats × three batches
}

TEST(ContextEffect, IsContinuousAtTheBaselineAndReadBetweenTheMeasuredContexts) {
  const double n = 8.030261248;  // the measured synthetic Llama-3-8B shape
  auto value = [&](int batch, int context) {
    auto e = estimate(at(n, "Q4_K_M", batch, context), published_evidence());
    EXPECT_TRUE(e) << e.error().describe();
    return e ? *e->delta_pct : NAN;
  };
  auto basis = [&](int batch, int context) {
    auto e = estimate(at(n, "Q4_K_M", batch, context), published_evidence());
    return e ? e->basis : Basis::unavailable;
  };
  for (int batch : {1, 8, 32}) {
    EXPECT_NEAR(value(batch, 2049), value(batch, 2048), 0.05) << "batch " << batch;
    const double short_context = value(batch, 2048), mid = value(batch, 3000), measured = value(batch, 4096);
    EXPECT_GT((mid - short_context) * (measured - mid), 0.0) << "batch " << batch << ": " << short_context << " " << mid << " " << measured;
    EXPECT_EQ(basis(batch, 3000), Basis::interpolated) << "batch " << batch;
    EXPECT_EQ(basis(batch, 8192), Basis::extrapolated) << "batch " << batch;
  }
  // The batch group 2–8 was measured at batch 8 only: batch 4 at context 4096 lies beyond it.
  EXPECT_EQ(basis(4, 4096), Basis::extrapolated);
  // Another size than the one measured at a long context: beyond it too.
  EXPECT_EQ(basis(1, 4096), Basis::measured);
  auto other_size = estimate(at(3.2, "Q4_K_M", 1, 4096), published_evidence());
  ASSERT_TRUE(other_size) << other_size.error().describe();
  EXPECT_EQ(other_size->basis, Basis::extrapolated);
}

TEST(ContextEffect, AnEngineWithoutALongContextMeasurementIsModelledFromTheOthers) {
  EstimateRequest r;
  r.params_b = 7;
  r.arch = "ada";
  r.precision = "NF4";
  r.context = 4096;
  auto e = estimate(r, published_evidence());
  ASSERT_TRUE(e) << e.error().describe();
  EXPECT_EQ(e->basis, Basis::modelled);
  EXPECT_NE(e->prediction.delta->basis.label.find("was never measured"), std::string::npos) << e->prediction.delta->basis.label;
  r.context = 2048;
  auto short_context = estimate(r, published_evidence());
  ASSERT_TRUE(short_context) << short_context.error().describe();
  EXPECT_NE(short_context->basis, Basis::modelled);
  // Wider than at the baseline context: the effect's own spread is in the interval.
  EXPECT_GT(*e->ci_high_pct - *e->ci_low_pct, *short_context->ci_high_pct - *short_context->ci_low_pct);
}

TEST(ContextEffect, EvidenceWithNothingBeyondTheBaselineRefusesALongContext) {
  const Evidence evidence = ::ecocompute::testing::session_evidence({"h200-2026-12-03-llama3-1b-atlas"});
  const double n = evidence.rows.front().params_b;
  auto refused = estimate(at(n, "Q4_K_M", 1, 4096), evidence);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("nothing in the evidence was measured beyond context 2048"), std::string::npos)
      << refused.error().message();
  EXPECT_TRUE(estimate(at(n, "Q4_K_M", 1, 2048), evidence));
}

}  // namespace
}  // namespace ecocompute::decide
