// FP16 energy per token at a batch relative to batch 1: from measured sweeps at the size, from other
// sizes' sweeps, or from the published model, each labelled and with a range.
#include "data/batch_scaling.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

namespace ecocompute::data {
namespace {

DataRow fp16_row(const std::string& session, double params_b, int batch, double fp16_mj, const std::string& precision = "Q8_0",
                 const std::string& engine = "llama.cpp") {
  DataRow r;
  r.session_id = session;
  r.gpu = "NVIDIA H200";
  r.gpu_arch = "hopper";
  r.engine = engine;
  r.params_b = params_b;
  r.precision = precision;
  r.batch_size = batch;
  r.fp16_energy_per_token_mj = fp16_mj;
  r.energy_per_token_mj = fp16_mj * 0.7;
  return r;
}

// A sweep at 8 B: batch 1 on two cards (3000 and 3200), batch 4 at 800, batch 16 at 280.
std::vector<DataRow> sweep_at_8b() {
  return {fp16_row("a", 8.03, 1, 3000), fp16_row("b", 8.03, 1, 3200), fp16_row("a", 8.03, 4, 800), fp16_row("c", 8.03, 16, 280)};
}

TEST(BatchScaling, BatchOneIsOne) {
  const BatchScaling s = batch_scaling(sweep_at_8b(), "hopper", "llama.cpp", 8.03, 1);
  EXPECT_DOUBLE_EQ(s.value, 1.0);
  EXPECT_EQ(s.basis, Basis::measured);
}

TEST(BatchScaling, AMeasuredBatchIsTheRatioOfTheMeansOverSessions) {
  // Session "a" measured two formats at batch 1 (the same baseline twice): it counts once.
  std::vector<DataRow> rows = sweep_at_8b();
  rows.push_back(fp16_row("a", 8.03, 1, 3000, "Q4_K_M"));
  const BatchScaling s = batch_scaling(rows, "hopper", "llama.cpp", 8.0300, 4);
  EXPECT_EQ(s.basis, Basis::measured);
  EXPECT_NEAR(s.value, 800.0 / 3100.0, 1e-12);
  EXPECT_DOUBLE_EQ(s.low, s.value);
  EXPECT_DOUBLE_EQ(s.high, s.value);
  // "8 B" is the 8.03 B that was measured (within 0.5 %).
  EXPECT_EQ(batch_scaling(rows, "hopper", "llama.cpp", 8.0, 4).basis, Basis::measured);
}

TEST(BatchScaling, BetweenMeasuredBatchesItIsLogLinearAndRangesOverBoth) {
  const BatchScaling s = batch_scaling(sweep_at_8b(), "hopper", "llama.cpp", 8.03, 8);
  EXPECT_EQ(s.basis, Basis::interpolated);
  const double r4 = 800.0 / 3100.0, r16 = 280.0 / 3100.0;
  EXPECT_NEAR(s.value, std::sqrt(r4 * r16), 1e-12);  // batch 8 is halfway between 4 and 16 in log
  EXPECT_NEAR(s.low, r16, 1e-12);
  EXPECT_NEAR(s.high, r4, 1e-12);
  EXPECT_NE(s.label.find("between measured batches 4"), std::string::npos) << s.label;
  // Batch 2 lies between batch 1 (ratio 1) and batch 4.
  const BatchScaling two = batch_scaling(sweep_at_8b(), "hopper", "llama.cpp", 8.03, 2);
  EXPECT_NEAR(two.value, std::sqrt(r4), 1e-12);
  EXPECT_DOUBLE_EQ(two.high, 1.0);
}

TEST(BatchScaling, BeyondTheLargestBatchItContinuesTheSlopeBetweenPerfectAmortizationAndNone) {
  // 4 → 16: ratio 800 → 280, slope ln(800/280)/ln 4 = 0.757.
  const BatchScaling s = batch_scaling(sweep_at_8b(), "hopper", "llama.cpp", 8.03, 64);
  EXPECT_EQ(s.basis, Basis::extrapolated);
  const double r16 = 280.0 / 3100.0, slope = std::log(800.0 / 280.0) / std::log(4.0);
  EXPECT_NEAR(s.value, r16 * std::pow(4.0, -slope), 1e-12);
  EXPECT_NEAR(s.low, r16 / 4, 1e-12);
  EXPECT_NEAR(s.high, r16, 1e-12);
  EXPECT_NE(s.label.find("beyond the largest measured batch 16"), std::string::npos) << s.label;
}

TEST(BatchScaling, ASlopeSteeperThanOneOverBatchIsCappedThere) {
  // Measured 1 → 2 at a quarter: faster than 1/batch (a card difference, say). Beyond, at most 1/batch.
  const std::vector<DataRow> rows = {fp16_row("a", 1.24, 1, 640), fp16_row("a", 1.24, 2, 160)};
  const BatchScaling s = batch_scaling(rows, "hopper", "llama.cpp", 1.24, 8);
  EXPECT_NEAR(s.value, 0.25 / 4, 1e-12);
  EXPECT_NEAR(s.low, s.value, 1e-12);
}

TEST(BatchScaling, ASizeWithoutASweepBorrowsTheOtherSizesRatiosWithAWiderRange) {
  std::vector<DataRow> rows = sweep_at_8b();
  rows.push_back(fp16_row("d", 1.24, 1, 650));
  rows.push_back(fp16_row("d", 1.24, 16, 60));
  rows.push_back(fp16_row("e", 3.2, 1, 1600));  // 3.2 B: batch 1 only
  const BatchScaling s = batch_scaling(rows, "hopper", "llama.cpp", 3.2, 16);
  EXPECT_EQ(s.basis, Basis::borrowed);
  const double r8 = 280.0 / 3100.0, r1 = 60.0 / 650.0;
  EXPECT_NEAR(s.value, std::sqrt(r8 * r1), 1e-12);  // geometric mean of the sizes' ratios
  EXPECT_NEAR(s.low, std::min(r8, r1) / 1.25, 1e-12);
  EXPECT_NEAR(s.high, std::max(r8, r1) * 1.25, 1e-12);
  EXPECT_NE(s.label.find("8.03 B"), std::string::npos) << s.label;
  EXPECT_NE(s.label.find("1.24 B"), std::string::npos) << s.label;
  // The range never leaves [1/batch, 1].
  const BatchScaling two = batch_scaling(rows, "hopper", "llama.cpp", 3.2, 2);
  EXPECT_LE(two.high, 1.0);
  EXPECT_GE(two.low, 0.5);
}

TEST(BatchScaling, WithoutASweepForTheArchitectureAndEngineItIsThePublishedModelWithAFullRange) {
  std::vector<DataRow> rows = sweep_at_8b();
  for (const DataRow& r : sweep_at_8b()) {
    DataRow other = r;
    other.engine = "transformers";
    other.basis = Basis::modelled;  // not a measurement: never a sweep
    rows.push_back(other);
  }
  for (const auto& [arch, engine] : {std::pair<std::string, std::string>{"ampere", "llama.cpp"}, {"hopper", "transformers"}}) {
    const BatchScaling s = batch_scaling(rows, arch, engine, 8.03, 64);
    EXPECT_EQ(s.basis, Basis::modelled) << arch << " " << engine;
    EXPECT_NEAR(s.value, 0.65 + 0.35 / 64, 1e-12);
    EXPECT_NEAR(s.low, 1.0 / 64, 1e-12);  // perfect amortization is inside the range
    EXPECT_DOUBLE_EQ(s.high, 1.0);
    EXPECT_FALSE(s.model.empty());
  }
}

TEST(BatchScaling, AScaledEnergyIsNeverMeasuredAndCarriesTheScalingsReasonAndModel) {
  FigureBasis batch_one;
  batch_one.basis = Basis::measured;
  batch_one.label = "FP16 measured at this size";
  const BatchScaling measured = batch_scaling(sweep_at_8b(), "hopper", "llama.cpp", 8.03, 4);
  const FigureBasis at_four = scaled_basis(batch_one, measured, 4);
  EXPECT_EQ(at_four.basis, Basis::interpolated);
  EXPECT_NE(at_four.label.find("FP16 at batch 4 relative to batch 1: batch 4 measured at 8.03 B"), std::string::npos) << at_four.label;
  EXPECT_TRUE(at_four.model.empty());
  const BatchScaling modelled = batch_scaling(sweep_at_8b(), "ampere", "llama.cpp", 8.03, 4);
  const FigureBasis from_model = scaled_basis(batch_one, modelled, 4);
  EXPECT_EQ(from_model.basis, Basis::modelled);
  EXPECT_EQ(from_model.model, modelled.model);
}

}  // namespace
}  // namespace ecocompute::data
