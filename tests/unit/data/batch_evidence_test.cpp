// Batches beyond the measured ones at a size: the model from batch 1 says one thing, a measured batch
// another, and the band must hold both. Evidence: Llama-3-8B on the H200 with llama.cpp, batch 1 (the
// 2026-11-29 session) and batch 1 and 4 (the 2026-12-01 batch session), imported as a user would;
// one size, so the key has no curve and answers from its cells (two sessions of one engine build at one
// size once made loading the evidence fail: "a curve needs points at 2 or more model sizes").
#include <gtest/gtest.h>

#include <string>

#include "data/estimator.hpp"
#include "data/evidence.hpp"
#include "data/optimizer.hpp"
#include "support/session_evidence.hpp"

namespace ecocompute::data {
namespace {

EstimateRequest ask(int batch) {
  EstimateRequest r;
  r.params_b = 8.03;
  r.arch = "hopper";
  r.engine = "llama.cpp";
  r.precision = "Q4_K_M";
  r.batch = batch;
  return r;
}

TEST(BatchEvidence, BeyondTheMeasuredBatchesTheBandReachesTheNearestMeasuredOne) {
  const Evidence evidence = ecocompute::testing::session_evidence({"h200-2026-11-29-llama3-8b-synthetic", "h200-2026-12-01-llama3-8b-batch"});
  auto four = estimate(ask(4), evidence);
  ASSERT_TRUE(four) << four.error().describe();
  EXPECT_EQ(four->basis, Basis::measured);
  EXPECT_NEAR(*four->delta_pct, 7.63, 0.01);

  // Batch 8: the model from batch 1 (−38 % there) still says Q4_K_M saves, while batch 4 measured a cost.
  auto eight = estimate(ask(8), evidence);
  ASSERT_TRUE(eight) << eight.error().describe();
  EXPECT_EQ(eight->basis, Basis::modelled);
  EXPECT_LT(*eight->delta_pct, 0.0);
  EXPECT_GE(*eight->ci_high_pct, 7.63);
  EXPECT_EQ(eight->recommendation, "depends");
  bool named = false;
  for (const std::string& note : eight->notes) named = named || note.find("batch 4 was measured at this size") != std::string::npos;
  EXPECT_TRUE(named);
}

TEST(BatchEvidence, ABatchMeasuredOnAnotherCardBracketsTheQuestion) {
  // Adding batch 16 (−34.0 %, a card that measured no batch 1): batch 8 now lies between 4 and 16.
  const Evidence evidence = ecocompute::testing::session_evidence({"h200-2026-11-29-llama3-8b-synthetic", "h200-2026-12-01-llama3-8b-batch",
                                         "h200-2026-12-01-llama3-8b-batch-16"});
  auto eight = estimate(ask(8), evidence);
  ASSERT_TRUE(eight) << eight.error().describe();
  EXPECT_EQ(eight->basis, Basis::interpolated) << eight->delta_basis.label;
  EXPECT_NE(eight->delta_basis.label.find("GPU-eb85a78d"), std::string::npos) << eight->delta_basis.label;
  EXPECT_LE(*eight->ci_low_pct, -34.03);
  EXPECT_GE(*eight->ci_high_pct, 7.63);
}

TEST(BatchEvidence, OptimizeScalesFp16EnergyByTheMeasuredSweepNotByThePublishedModel) {
  // F16 at 8.03 B: about 3100 mJ/token at batch 1 (two cards), 759.3 at batch 4, 273.9 at batch 16.
  // Batch 32 is beyond the sweep: between 273.9/2 (energy ∝ 1/batch) and 273.9, extrapolated. The
  // published model (0.65 + 0.35/32 of batch 1) would say about 2060 mJ/token.
  const Evidence evidence = ecocompute::testing::session_evidence({"h200-2026-11-29-llama3-8b-synthetic", "h200-2026-12-01-llama3-8b-batch",
                                         "h200-2026-12-01-llama3-8b-batch-16"});
  OptimizeRequest r;
  r.params_b = 8.03;
  r.gpu = "H200";
  r.engine = "llama.cpp";
  r.precisions = {"F16", "Q4_K_M"};
  r.batches = {1, 32};
  r.contexts = {2048};
  auto answer = optimize(r, evidence);
  ASSERT_TRUE(answer) << answer.error().describe();
  const Candidate* f16_32 = nullptr;
  for (const Candidate& c : answer->candidates) {
    if (c.precision == "F16" && c.batch == 32) f16_32 = &c;
  }
  ASSERT_NE(f16_32, nullptr);
  ASSERT_TRUE(f16_32->energy_mj_per_token && f16_32->relative_energy);
  EXPECT_GT(*f16_32->energy_mj_per_token, 273.9 / 2 * 0.95);
  EXPECT_LT(*f16_32->energy_mj_per_token, 273.9 * 1.05);
  EXPECT_LT(*f16_32->relative_energy, 0.1);
  EXPECT_EQ(f16_32->energy_basis.basis, Basis::extrapolated) << f16_32->energy_basis.label;
  // Batching, not quantizing, is what saves most here: the recommendation is a batch-32 configuration.
  ASSERT_TRUE(answer->recommended);
  EXPECT_EQ(answer->recommended->batch, 32);
}

}  // namespace
}  // namespace ecocompute::data
