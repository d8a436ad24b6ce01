// Batches beyond the measured ones at a size: the model from batch 1 says one thing, a measured batch
// another, and the band must hold both. Evidence: Llama-3-8B on the H200 with llama.cpp, batch 1 (the
// 2026-11-29 session) and batch 1 and 4 (the 2026-12-01 batch session), imported as a user would;
// one size, so the key has no curve and answers from its cells (two sessions of one engine build at one
// size once made loading the evidence fail: "a curve needs points at 2 or more model sizes").
#include <gtest/gtest.h>

#include <string>

#include "data/estimator.hpp"
#include "data/evidence.hpp"
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

}  // namespace
}  // namespace ecocompute::data
