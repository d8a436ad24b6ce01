// A key measured at one size has no curve, and its measured cells still answer: llama-server on the
// H200 behind measure-endpoint, Llama-3-8B F16 vs Q4_K_M at each concurrency, two cards (the four
// per-level sweeps under data/sessions/, imported as a user would import them).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "data/estimator.hpp"
#include "data/evidence.hpp"
#include "data/optimizer.hpp"
#include "support/session_evidence.hpp"

namespace ecocompute::data {
namespace {

class MeasuredCellsTest : public ::testing::Test {
 protected:
  // Loaded on first use inside a test, not in SetUpTestSuite: a suite set-up that fails shows in ctest
  // as skipped tests, which count as passed; a load that throws here fails the test.
  static const Evidence& evidence() {
    static const Evidence e = ecocompute::testing::session_evidence(
        {"h200-2026-12-01-serve-llama3-8b-per-level-1/sweep", "h200-2026-12-01-serve-llama3-8b-per-level-2/sweep",
         "h200-2026-12-01-serve-llama3-8b-per-level-3/sweep", "h200-2026-12-01-serve-llama3-8b-per-level-4/sweep"});
    return e;
  }
  static EstimateRequest ask(double n, int batch) {
    EstimateRequest r;
    r.params_b = n;
    r.gpu = "H200";
    r.engine = "openai-endpoint";
    r.precision = "Q4_K_M";
    r.batch = batch;
    return r;
  }
};

TEST_F(MeasuredCellsTest, AConcurrencyOneSessionMeasuredIsMeasuredWithItsOwnCi) {
  // -per-level-1, C = 1: ΔE −37.3 % [−38.7, −36.0] on GPU-b0c433a5, the only session at C = 1.
  auto e = estimate(ask(8.03, 1), evidence());
  ASSERT_TRUE(e) << e.error().describe();
  EXPECT_EQ(e->basis, Basis::measured) << e->delta_basis.label;
  EXPECT_FALSE(e->modelled);
  EXPECT_NEAR(*e->delta_pct, -37.3, 0.05);
  ASSERT_TRUE(e->band.within_session.has_value());
  EXPECT_NEAR(*e->band.within_session, 1.4, 0.1);
  EXPECT_FALSE(e->band.between_sessions.has_value());
  EXPECT_NE(e->band.between_sessions_note.find("spread between sessions is unknown"), std::string::npos);
  EXPECT_NE(e->confidence, "high");
  EXPECT_NE(e->delta_basis.label.find("batch 1 on NVIDIA H200"), std::string::npos) << e->delta_basis.label;
  EXPECT_NE(e->delta_basis.label.find("GPU-b0c433a5"), std::string::npos) << e->delta_basis.label;
  EXPECT_EQ(e->recommendation, "quantize");
  ASSERT_TRUE(e->energy_estimate.has_value());
  EXPECT_EQ(e->energy_estimate->basis.basis, Basis::measured);
  EXPECT_NEAR(e->energy_estimate->mj_per_token, 1947.4, 0.1);
}

TEST_F(MeasuredCellsTest, TwoCardsAtOneConcurrencyGiveTheirMeanAndTheirSpread) {
  // C = 8: the rows' ΔE (ratio of the mean energies per token) is +38.96 % on GPU-b0c433a5
  // (-per-level-1) and +31.37 % on GPU-aac601a0 (-per-level-3).
  auto e = estimate(ask(8.03, 8), evidence());
  ASSERT_TRUE(e) << e.error().describe();
  EXPECT_EQ(e->basis, Basis::measured);
  EXPECT_NEAR(*e->delta_pct, (38.957 + 31.372) / 2, 0.001);
  ASSERT_TRUE(e->band.between_sessions.has_value());
  EXPECT_NEAR(*e->band.between_sessions, 1.96 * (38.957 - 31.372) / 2, 0.001);
  EXPECT_EQ(e->delta_basis.sessions.size(), 2u);
  EXPECT_EQ(e->recommendation, "do_not_quantize");
  EXPECT_GT(*e->ci_low_pct, 0.0);
  // The absolute energy is one session's own measurement, and its basis names that session only.
  ASSERT_TRUE(e->energy_estimate.has_value());
  EXPECT_EQ(e->energy_estimate->basis.basis, Basis::measured);
  ASSERT_EQ(e->energy_estimate->basis.sessions.size(), 1u);
  EXPECT_NE(e->energy_estimate->basis.label.find("one of the 2 sessions behind ΔE"), std::string::npos)
      << e->energy_estimate->basis.label;
}

TEST_F(MeasuredCellsTest, AConcurrencyBetweenTwoMeasuredOnesIsInterpolatedWithBothInTheBand) {
  // C = 2: −22.08 %, C = 4: +2.96 % (-per-level-1, rows' ΔE). C = 3 lies 0.585 of the way in log2.
  auto e = estimate(ask(8.03, 3), evidence());
  ASSERT_TRUE(e) << e.error().describe();
  EXPECT_EQ(e->basis, Basis::interpolated) << e->delta_basis.label;
  EXPECT_FALSE(e->modelled);
  const double t = std::log2(3.0) - 1.0;
  const double low = e->anchors.front().delta_pct, high = e->anchors.back().delta_pct;
  EXPECT_NEAR(low, -22.1, 0.1);
  EXPECT_NEAR(high, 3.0, 0.1);
  EXPECT_NEAR(*e->delta_pct, low + t * (high - low), 1e-9);
  // Nearer C = 4 than C = 2, yet the band still reaches C = 2's value: ΔE between them is not measured.
  EXPECT_NEAR(e->band.batch_model, t * (high - low), 1e-9);
  EXPECT_LE(*e->ci_low_pct, low);
  EXPECT_GE(*e->ci_high_pct, high);
  EXPECT_NE(e->delta_basis.label.find("interpolated between batch 2"), std::string::npos) << e->delta_basis.label;
  EXPECT_EQ(e->recommendation, "depends");
  // The energy at C = 3 is not measured either.
  ASSERT_TRUE(e->energy_estimate.has_value());
  EXPECT_NE(e->energy_estimate->basis.basis, Basis::measured);
}

TEST_F(MeasuredCellsTest, AConcurrencyBeyondTheMeasuredOnesIsModelledFromTheBatchOneCellAndSaysSo) {
  auto e = estimate(ask(8.03, 128), evidence());
  ASSERT_TRUE(e) << e.error().describe();
  EXPECT_EQ(e->basis, Basis::modelled);
  EXPECT_TRUE(e->modelled);
  EXPECT_GT(e->band.batch_model, 0.0);
  EXPECT_NE(e->verdict.find("Not a measurement of this configuration"), std::string::npos) << e->verdict;
}

TEST_F(MeasuredCellsTest, AnotherSizeHasNothingToBeReadFromAndTheErrorSaysWhatIsMeasured) {
  auto e = estimate(ask(14.0, 1), evidence());
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().code(), ErrorCode::not_found);
  EXPECT_NE(e.error().message().find("measured at 8.03 B (batch 1, 2, 4, 8, 16, 32, 64) only"), std::string::npos)
      << e.error().message();
  EXPECT_EQ(e.error().message().find("not measured on any architecture"), std::string::npos);
}

TEST_F(MeasuredCellsTest, AnotherHopperCardIsBorrowedAndWidens) {
  EstimateRequest r = ask(8.03, 1);
  r.gpu = "H100";
  auto e = estimate(r, evidence());
  ASSERT_TRUE(e) << e.error().describe();
  EXPECT_EQ(e->basis, Basis::borrowed) << e->delta_basis.label;
  EXPECT_GT(e->band.borrowing, 0.0);
}

TEST_F(MeasuredCellsTest, OptimizeScoresEveryMeasuredConcurrencyAsMeasured) {
  OptimizeRequest r;
  r.params_b = 8.03;
  r.gpu = "H200";
  r.engine = "openai-endpoint";
  r.precisions = {"F16", "Q4_K_M"};
  r.batches = {1, 8, 64};
  r.contexts = {512};
  auto o = optimize(r, evidence());
  ASSERT_TRUE(o) << o.error().describe();
  EXPECT_TRUE(o->skipped.empty());
  ASSERT_EQ(o->candidates.size(), 6u);
  for (const Candidate& c : o->candidates) {
    EXPECT_EQ(c.energy_basis.basis, Basis::measured) << c.precision << " batch " << c.batch << ": " << c.energy_basis.label;
  }
}

}  // namespace
}  // namespace ecocompute::data
