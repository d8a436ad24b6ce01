// The inputs of a question: GPU names exact or from the alias table (no prefix matching), engine names
// in any case, sizes of mixtures of experts (total for memory, active for compute), and batch and
// context within their bounds, with errors that name what was asked.
#include <gtest/gtest.h>

#include "data/engine_name.hpp"
#include "data/gpu_spec.hpp"
#include "data/model_size.hpp"
#include "data/query_text.hpp"

namespace ecocompute::data {
namespace {

TEST(GpuNames, ExactNamesAndAliasesOnly) {
  EXPECT_EQ(find_gpu("H200 NVL")->name, "H200 NVL");
  EXPECT_EQ(find_gpu("NVIDIA H200 NVL")->board_power_w, 600);
  EXPECT_EQ(find_gpu("NVIDIA H200")->name, "H200");
  EXPECT_EQ(find_gpu("A100")->name, "A100 SXM");
  EXPECT_EQ(find_gpu("H100")->name, "H100 SXM");
  EXPECT_EQ(find_gpu("NVIDIA A100-PCIE-40GB")->name, "A100 PCIe");
  for (const char* unknown : {"H2000", "L40", "T400", "A1000", "RTX 40900", "H100X"}) {
    auto gpu = find_gpu(unknown);
    ASSERT_FALSE(gpu) << unknown << " → " << gpu->name;
    EXPECT_EQ(gpu.error().code(), ErrorCode::not_found);
    EXPECT_NE(gpu.error().message().find("known: T4, RTX 3090"), std::string::npos) << gpu.error().message();
  }
}

TEST(EngineNames, AnyCaseGivesTheDatasetSpelling) {
  EXPECT_EQ(canonical_engine_name("LLAMA.CPP"), "llama.cpp");
  EXPECT_EQ(canonical_engine_name("Transformers+BitsAndBytes"), "transformers+bitsandbytes");
  EXPECT_EQ(canonical_engine_name("my-engine"), "my-engine");
}

TEST(ModelSizes, AMixtureOfExpertsHasATotalAndAnActiveSize) {
  const auto mixtral = model_size_from_name("mistralai/Mixtral-8x7B-Instruct-v0.1");
  ASSERT_TRUE(mixtral);
  EXPECT_EQ(mixtral->total_b, 46.7);
  EXPECT_EQ(mixtral->active_b, 12.9);
  const auto qwen = model_size_from_name("Qwen3-235B-A22B");
  ASSERT_TRUE(qwen);
  EXPECT_EQ(qwen->total_b, 235.0);
  EXPECT_EQ(qwen->active_b, 22.0);
  const auto generic = model_size_from_name("Example-4x10B");  // Mixtral's split: 10 × (0.19 + 0.81 × 4), 10 × (0.19 + 0.81 × 2)
  ASSERT_TRUE(generic);
  EXPECT_NEAR(generic->total_b, 34.3, 1e-9);
  EXPECT_NEAR(*generic->active_b, 18.1, 1e-9);
  EXPECT_FALSE(model_size_from_name("Qwen2.5-14B")->active_b);
  const QueryText q = read_query_text("Mixtral-8x7B on H200 Q4_K_M");
  EXPECT_EQ(q.params_b, 46.7);
  EXPECT_EQ(q.active_params_b, 12.9);
  EXPECT_EQ(q.gpu, "H200");
}

TEST(ModelSizes, ANameOfAnyLengthIsReadInLinearTime) {
  EXPECT_FALSE(model_size_from_name(std::string(100'000, '9')));
  EXPECT_EQ(params_b_from_model_name(std::string(50'000, 'x') + "-7B"), 7.0);
  EXPECT_FALSE(model_size_from_name(std::string(50'000, '8') + "x"));
}

TEST(QuestionBounds, BatchAndContextPastTheirBoundsAreRefused) {
  auto batch = parse_query_text("8B on H200 batch 100000");
  ASSERT_FALSE(batch);
  EXPECT_NE(batch.error().message().find("the batch q asks for must be a batch size from 1 to 4096, got 100000"), std::string::npos)
      << batch.error().message();
  auto context = parse_query_text("8B on H200 ctx 9000k", "--q");
  ASSERT_FALSE(context);
  EXPECT_NE(context.error().message().find("from 1 to 1048576 tokens"), std::string::npos) << context.error().message();
  auto huge = parse_query_text("8B on H200 batch 123456789012");
  ASSERT_FALSE(huge);
  EXPECT_NE(huge.error().message().find("q asks for batch 123456789012, more than can be read"), std::string::npos)
      << huge.error().message();
  EXPECT_EQ(read_query_text("8b ctx 999999999 8k tokens").unreadable, "context 999999999");  // the first rule decides
  EXPECT_FALSE(read_query_text("8b ctx 999999999 8k tokens").context);
  EXPECT_TRUE(check_batch_size(4096, "batch"));
  EXPECT_FALSE(check_batch_size(100'000'000, "batch"));
  EXPECT_FALSE(check_context_length(10'000'000, "ctx"));
}

}  // namespace
}  // namespace ecocompute::data
