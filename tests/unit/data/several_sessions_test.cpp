// A size measured by several sessions, next to a curve fitted to another session: Llama-3-8B on the
// H200 with llama.cpp, measured on several cards (2026-11-29, 2026-12-01, 2026-12-02), and a curve from
// the 2026-11-30 card's 0.5–3.2 B sizes, imported as a user would. The figure is the sessions' mean;
// its band is their own CIs and their disagreement, and its energy one of their own measurements,
// not the curve's band nor the curve's FP16 fit extrapolated to 8 B.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "data/estimator.hpp"
#include "data/evidence.hpp"
#include "support/session_evidence.hpp"

namespace ecocompute::data {
namespace {

const Evidence& evidence() {
  static const Evidence e = ecocompute::testing::session_evidence({
      "h200-2026-11-30-qwen2-0.5b-campaign", "h200-2026-11-30-qwen2-1.5b-campaign", "h200-2026-11-30-llama3-3b-campaign",
      "h200-2026-11-29-llama3-8b-synthetic",  // Q8_0 −31.08, Q4_K_M −38.56 (one card)
      "h200x2-2026-12-01-split-llama3-8b/single",  // Q4_K_M −41.33 (another card)
      "h200-2026-12-01-llama3-8b-batch",  // Q4_K_M −38.3 at batch 1, +7.6 at batch 4 (a third card)
      "h200-2026-12-02-llama3-8b-q8-batch-1-4",  // Q8_0 −30.07 at batch 1, −6.13 at batch 4 (a fourth card)
      "h200-2026-12-02-llama3-8b-batch-8",  // Q8_0 +21.37, Q4_K_M +56.87 at batch 8 (the fourth card)
  });
  return e;
}

EstimateRequest ask(const char* precision, int batch = 1, double params_b = 8.03) {
  EstimateRequest r;
  r.params_b = params_b;
  r.arch = "hopper";
  r.engine = "llama.cpp";
  r.precision = precision;
  r.batch = batch;
  return r;
}

TEST(SeveralSessions, TheBandIsTheSessionsOwnCisAndTheirDisagreement) {
  auto e = estimate(ask("Q8_0"), evidence());
  ASSERT_TRUE(e) << e.error().describe();
  EXPECT_EQ(e->basis, Basis::measured);
  EXPECT_NEAR(*e->delta_pct, (-31.08 - 30.07) / 2, 0.01);
  EXPECT_EQ(e->ci_kind, "session CIs and their spread");
  // The wider own CI is the 2026-12-02 session's (−30.07 [−30.97, −29.16]), not the curve's band.
  ASSERT_TRUE(e->band.within_session);
  EXPECT_NEAR(*e->band.within_session, 0.905, 0.01);
  ASSERT_TRUE(e->band.between_sessions);
  EXPECT_NEAR(*e->band.between_sessions, 1.96 * (31.08 - 30.07) / 2, 0.02);
  EXPECT_NEAR(e->band.half_width, std::hypot(*e->band.within_session, *e->band.between_sessions), 1e-9);
}

TEST(SeveralSessions, TheEnergyIsTheMeasurementOfTheSessionNearestTheirMean) {
  // Q4_K_M: −38.56, −41.33, −38.3 (mean −39.4): the 2026-11-29 session is nearest. The question says
  // 8.03 B, the sessions 8.03026 B: one model, so the energy is measured, not the curve's FP16 fit.
  auto e = estimate(ask("Q4_K_M"), evidence());
  ASSERT_TRUE(e) << e.error().describe();
  ASSERT_TRUE(e->energy_estimate);
  const EnergyEstimate& energy = *e->energy_estimate;
  EXPECT_EQ(energy.basis.basis, Basis::measured) << energy.basis.label;
  EXPECT_EQ(energy.fp16_basis.basis, Basis::measured) << energy.fp16_basis.label;
  EXPECT_NE(energy.fp16_basis.label.find("GPU-1e49a711"), std::string::npos) << energy.fp16_basis.label;
  EXPECT_NEAR(energy.fp16_mj_per_token, 3142.7, 0.1);
  EXPECT_NE(energy.basis.label.find("one of the 3 sessions behind ΔE"), std::string::npos) << energy.basis.label;
}

TEST(SeveralSessions, OneSessionAskedAtARoundedSizeStillGivesItsMeasuredEnergy) {
  // Q4_0 at 8 B: one session (2026-11-29). "Llama-3-8B" reads as 8 B, within 0.5 % of 8.03026 B.
  auto e = estimate(ask("Q4_0", 1, 8.0), evidence());
  ASSERT_TRUE(e) << e.error().describe();
  EXPECT_EQ(e->basis, Basis::measured);
  ASSERT_TRUE(e->energy_estimate);
  EXPECT_EQ(e->energy_estimate->basis.basis, Basis::measured) << e->energy_estimate->basis.label;
  EXPECT_NEAR(e->energy_estimate->fp16_mj_per_token, 3142.7, 0.1);
}

TEST(SeveralSessions, AMeasuredBatchGivesTheEnergyOfTheSessionThatMeasuredIt) {
  auto e = estimate(ask("Q8_0", 8), evidence());
  ASSERT_TRUE(e) << e.error().describe();
  EXPECT_EQ(e->basis, Basis::measured);
  EXPECT_NEAR(*e->delta_pct, 21.37, 0.01);
  ASSERT_TRUE(e->energy_estimate);
  const EnergyEstimate& energy = *e->energy_estimate;
  EXPECT_EQ(energy.basis.basis, Basis::measured) << energy.basis.label;
  EXPECT_NEAR(energy.mj_per_token, 510.47, 0.01);
  EXPECT_NEAR(energy.fp16_mj_per_token, 420.57, 0.01);
  EXPECT_NE(energy.fp16_basis.label.find("batch 8"), std::string::npos) << energy.fp16_basis.label;
}

}  // namespace
}  // namespace ecocompute::data
