// The batch regimes switch where the pinned llama.cpp's CUDA dispatch switches kernels (mmvq.cu
// calc_nwarps and ggml_cuda_should_use_mmvq, mmf.cu ggml_cuda_should_use_mmf, ggml-cuda.cu
// ggml_cuda_mul_mat), and a regime's slope starts at the last batch of the regime below.
#include "decide/batch_regime.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace ecocompute::decide {
namespace {

std::vector<int> regimes(const char* engine, const char* precision, const char* arch, int last) {
  std::vector<int> out;
  for (int b = 1; b <= last; ++b) out.push_back(batch_regime(engine, precision, arch, b));
  return out;
}

TEST(BatchRegime, AQuantizedFormatOnHopperSwitchesWhereTheVectorKernelHalvesItsWarpsAndWhereF16LeavesItsFloatKernel) {
  // 1 | 2–4 MMVQ 4 warps | 5–8 MMVQ 2 warps | 9–16 MMQ against mul_mat_f | 17– MMQ against cuBLAS
  const std::vector<int> want{0, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 4, 4};
  EXPECT_EQ(regimes("llama.cpp", "Q4_K_M", "hopper", 18), want);
  EXPECT_EQ(regimes("llama-server", "Q8_0", "hopper", 18), want);
  EXPECT_EQ(batch_regime("llama.cpp", "Q6_K", "hopper", 512), 4);
}

TEST(BatchRegime, F16HasItsVectorKernelItsFloatMatrixKernelAndCuBlas) {
  EXPECT_EQ(batch_regime("llama.cpp", "F16", "hopper", 1), 0);
  EXPECT_EQ(batch_regime("llama.cpp", "F16", "hopper", 2), 1);
  EXPECT_EQ(batch_regime("llama.cpp", "F16", "hopper", 16), 1);
  EXPECT_EQ(batch_regime("llama.cpp", "F16", "hopper", 17), 2);
  EXPECT_EQ(regime_first_batch("llama.cpp", "F16", "hopper", 1), 1);
  EXPECT_EQ(regime_first_batch("llama.cpp", "F16", "hopper", 2), 16);
}

TEST(BatchRegime, TheVectorKernelsTunedLimitsMoveTheSwitchToTheMatrixKernel) {
  // Ada: Q2_K leaves the vector kernel after 4 (no 2-warp regime), Q4_K after 7; Blackwell: K-quants
  // Q2…Q5 after 5.
  EXPECT_EQ(regimes("llama.cpp", "Q2_K", "ada", 6), (std::vector<int>{0, 1, 1, 1, 3, 3}));
  EXPECT_EQ(batch_regime("llama.cpp", "Q4_K_M", "ada", 7), 2);
  EXPECT_EQ(batch_regime("llama.cpp", "Q4_K_M", "ada", 8), 3);
  EXPECT_EQ(regimes("llama.cpp", "Q5_K_M", "blackwell", 7), (std::vector<int>{0, 1, 1, 1, 2, 3, 3}));
  EXPECT_EQ(regime_first_batch("llama.cpp", "Q2_K", "ada", 3), 4);
  EXPECT_EQ(regime_first_batch("llama.cpp", "Q4_K_M", "ada", 3), 7);
}

TEST(BatchRegime, EachRegimesSlopeStartsAtTheLastBatchBelowIt) {
  for (int regime = 1; regime <= 4; ++regime) {
    const int first = regime_first_batch("llama.cpp", "Q4_K_M", "hopper", regime);
    EXPECT_EQ(batch_regime("llama.cpp", "Q4_K_M", "hopper", first), regime - 1) << regime;
    EXPECT_EQ(batch_regime("llama.cpp", "Q4_K_M", "hopper", first + 1), regime) << regime;
  }
}

// Inside the vector kernel's regimes a sequence adds its own dequantizing to one read of the weights, so
// the slope's covariate is linear in the batch there (meeting ln(last / first) at the regime's last batch);
// the matrix kernels' regimes, F16's and other engines' keep ln(batch / first).
TEST(BatchRegime, TheSlopesCovariateIsLinearInBatchInsideTheVectorKernelsRegimesAndLogarithmicElsewhere) {
  const double ln2 = std::log(2.0), ln4 = std::log(4.0);
  EXPECT_DOUBLE_EQ(regime_coordinate("llama.cpp", "Q4_K_M", "hopper", 1), 0.0);
  EXPECT_DOUBLE_EQ(regime_coordinate("llama.cpp", "Q4_K_M", "hopper", 2), ln4 / 3);
  EXPECT_DOUBLE_EQ(regime_coordinate("llama.cpp", "Q4_K_M", "hopper", 3), 2 * ln4 / 3);
  EXPECT_DOUBLE_EQ(regime_coordinate("llama.cpp", "Q4_K_M", "hopper", 4), ln4);
  EXPECT_DOUBLE_EQ(regime_coordinate("llama-server", "Q8_0", "hopper", 5), ln2 / 4);
  EXPECT_DOUBLE_EQ(regime_coordinate("llama.cpp", "Q8_0", "hopper", 6), ln2 / 2);
  EXPECT_DOUBLE_EQ(regime_coordinate("llama.cpp", "Q8_0", "hopper", 8), ln2);
  EXPECT_DOUBLE_EQ(regime_coordinate("llama.cpp", "Q4_K_M", "blackwell", 5), std::log(5.0 / 4.0));  // a regime of one batch
  EXPECT_DOUBLE_EQ(regime_coordinate("llama.cpp", "Q6_K", "hopper", 12), std::log(12.0 / 8.0));   // MMQ
  EXPECT_DOUBLE_EQ(regime_coordinate("llama.cpp", "Q6_K", "hopper", 32), ln2);
  EXPECT_DOUBLE_EQ(regime_coordinate("llama.cpp", "F16", "hopper", 3), std::log(3.0));
  EXPECT_DOUBLE_EQ(regime_coordinate("llama.cpp", "F16", "hopper", 32), ln2);
  EXPECT_DOUBLE_EQ(regime_coordinate("transformers+bitsandbytes", "NF4", "ada", 3), std::log(3.0));
}

// A model point has its regime already: the coordinate read from it is the one worked out from the batch.
TEST(BatchRegime, TheCoordinateFromAKnownRegimeIsTheOneFromTheBatch) {
  for (const char* engine : {"llama.cpp", "llama-server", "transformers+bitsandbytes"}) {
    for (const char* precision : {"F16", "Q8_0", "Q6_K", "Q4_K_M", "Q4_0", "IQ4_NL", "NF4"}) {
      for (const char* arch : {"hopper", "ada", "blackwell"}) {
        for (int batch = 1; batch <= 80; ++batch) {
          const int regime = batch_regime(engine, precision, arch, batch);
          EXPECT_EQ(regime_coordinate(engine, precision, arch, batch, regime), regime_coordinate(engine, precision, arch, batch))
              << engine << " " << precision << " " << arch << " batch " << batch;
        }
      }
    }
  }
  EXPECT_NE(regime_coordinate("llama.cpp", "Q4_K_M", "hopper", 3, 2), regime_coordinate("llama.cpp", "Q4_K_M", "hopper", 3));
}

TEST(BatchRegime, AnEngineWhoseKernelsWereNotReadHasOneRegimeAboveBatchOne) {
  EXPECT_EQ(regimes("transformers+bitsandbytes", "NF4", "ada", 5), (std::vector<int>{0, 1, 1, 1, 1}));
  EXPECT_EQ(batch_regime("transformers+bitsandbytes", "F16", "hopper", 64), 1);
  EXPECT_EQ(regime_first_batch("transformers+bitsandbytes", "NF4", "ada", 1), 1);
}

TEST(BatchRegime, TheTextNamesEachRegimesBatchesAndKernels) {
  EXPECT_EQ(regime_text("llama.cpp", "Q4_K_M", "hopper", 2),
            "batch 5–8: quantized weights by the vector kernel (MMVQ, 2 warps a block), F16 by mul_mat_f");
  EXPECT_EQ(regime_text("llama.cpp", "Q4_K_M", "blackwell", 2),
            "batch 5: quantized weights by the vector kernel (MMVQ, 2 warps a block), F16 by mul_mat_f");
  EXPECT_EQ(regime_text("llama.cpp", "Q8_0", "hopper", 4), "batch above 16: quantized weights by the matrix kernel (MMQ), F16 by cuBLAS");
  EXPECT_EQ(regime_text("llama.cpp", "F16", "hopper", 2), "batch above 16: F16 weights by cuBLAS");
}

}  // namespace
}  // namespace ecocompute::decide
