// Tests of the shape table: parameter counts against the published models, tensor lists, lookup.
#include "modelgen/synthetic_model.hpp"

#include <gtest/gtest.h>

#include <set>

namespace ecocompute::modelgen {
namespace {

std::uint64_t count(std::string_view id) {
  auto shape = find_shape(id);
  EXPECT_TRUE(shape.has_value()) << id;
  return shape ? parameter_count(*shape) : 0;
}

// Published parameter counts (sum of the safetensors tensors of each model on the Hugging Face hub).
TEST(SyntheticModel, ParameterCountsMatchThePublishedModels) {
  // Llama-3-8B: 2 × 128256×4096 embeddings + 32 × (q 4096² + k,v 2×4096×1024 + o 4096²
  // + ffn 3×4096×14336 + 2 norms of 4096) + 4096 = 8,030,261,248.
  EXPECT_EQ(count("llama3-8b"), 8'030'261'248ULL);
  // Llama-3.2-1B (tied): 128256×2048 + 16 × 60,821,504 + 2048 = 1,235,814,400.
  EXPECT_EQ(count("llama3-1b"), 1'235'814'400ULL);
  // Llama-3.2-3B (tied): 128256×3072 + 28 × 100,669,440 + 3072 = 3,212,749,824.
  EXPECT_EQ(count("llama3-3b"), 3'212'749'824ULL);
  // Qwen2-0.5B (tied, q/k/v biases): 151936×896 + 24 × 14,912,384 + 896 = 494,032,768.
  EXPECT_EQ(count("qwen2-0.5b"), 494'032'768ULL);
  EXPECT_EQ(count("qwen2-1.5b"), 1'543'714'304ULL);
  // Qwen2-7B (untied): 2 × 152064×3584 + 28 × 233,057,792 + 3584 = 7,615,616,512.
  EXPECT_EQ(count("qwen2-7b"), 7'615'616'512ULL);
  EXPECT_EQ(count("qwen2.5-3b"), 3'085'938'688ULL);
  EXPECT_EQ(count("qwen2.5-14b"), 14'770'033'664ULL);
  // Qwen2.5-32B (untied, q/k/v biases): 2 × 152064×5120 + 64 × 487,605,248 + 5120 = 32,763,876,352.
  EXPECT_EQ(count("qwen2.5-32b"), 32'763'876'352ULL);
  // Llama-3.1-70B: 2 × 128256×8192 + 80 × (q, o 8192² + k, v 2×8192×1024 + ffn 3×8192×28672 + norms)
  // + 8192 = 70,553,706,496.
  EXPECT_EQ(count("llama3.1-70b"), 70'553'706'496ULL);
}

TEST(SyntheticModel, TinyTestShapeCountIsTheHandSum) {
  // llama3-tiny: embeddings 2 × 64×128256 = 16,416,768; per layer q 64×64 = 4096, k and v 64×32 = 2048
  // each (2 kv heads of 16), o 4096, ffn 3×64×128 = 24,576, norms 128 → 36,992; 2 layers + 64 → 16,490,816.
  EXPECT_EQ(count("llama3-tiny"), 16'490'816ULL);
}

TEST(SyntheticModel, TensorListFollowsLlamaCppNames) {
  auto shape = find_shape("llama3-8b");
  ASSERT_TRUE(shape);
  const std::vector<TensorSpec> specs = tensor_specs(*shape);
  // token_embd + 32 layers × 9 + output_norm + output.
  ASSERT_EQ(specs.size(), 1U + 32U * 9U + 2U);
  EXPECT_EQ(specs.front().name, "token_embd.weight");
  EXPECT_EQ(specs.front().ne, (std::vector<std::int64_t>{4096, 128256}));
  EXPECT_EQ(specs.back().name, "output.weight");
  EXPECT_EQ(specs[3].name, "blk.0.attn_k.weight");
  EXPECT_EQ(specs[3].ne, (std::vector<std::int64_t>{4096, 1024}));  // 8 kv heads × 128
  EXPECT_EQ(specs[8].name, "blk.0.ffn_down.weight");
  EXPECT_EQ(specs[8].ne, (std::vector<std::int64_t>{14336, 4096}));
  std::set<std::string> names;
  for (const TensorSpec& t : specs) names.insert(t.name);
  EXPECT_EQ(names.size(), specs.size());
}

TEST(SyntheticModel, TiedQwenHasBiasesAndNoOutputMatrix) {
  auto shape = find_shape("qwen2-0.5b");
  ASSERT_TRUE(shape);
  const std::vector<TensorSpec> specs = tensor_specs(*shape);
  // token_embd + 24 layers × 12 + output_norm.
  ASSERT_EQ(specs.size(), 1U + 24U * 12U + 1U);
  EXPECT_EQ(specs.back().name, "output_norm.weight");
  EXPECT_EQ(specs[5].name, "blk.0.attn_q.bias");
  EXPECT_EQ(specs[5].role, TensorRole::bias);
  EXPECT_EQ(specs[6].ne, (std::vector<std::int64_t>{128}));  // k bias: 2 kv heads × 64
}

TEST(SyntheticModel, RealShapesAreValidAndHaveTheirTokenizer) {
  int real = 0;
  for (const ModelShape& s : known_shapes()) {
    EXPECT_TRUE(validate_shape(s).has_value()) << s.id;
    EXPECT_FALSE(s.vocab.empty()) << s.id;
    if (!s.test_only) ++real;
  }
  EXPECT_EQ(real, 10);
}

TEST(SyntheticModel, UnknownArchitectureListsTheKnownOnes) {
  auto shape = find_shape("llama3-70b");
  ASSERT_FALSE(shape);
  EXPECT_EQ(shape.error().code(), ErrorCode::not_found);
  EXPECT_NE(shape.error().message().find("llama3-70b"), std::string::npos);
  EXPECT_NE(shape.error().message().find("qwen2.5-14b"), std::string::npos);
}

TEST(SyntheticModel, InvalidShapesAreRejectedWithTheRule) {
  ModelShape s = *find_shape("llama3-tiny");
  s.n_head_kv = 3;  // 4 heads are not a multiple of 3
  auto bad = validate_shape(s);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("n_head_kv"), std::string::npos);
  s = *find_shape("llama3-tiny");
  s.architecture = "gpt2";
  EXPECT_FALSE(validate_shape(s));
  s = *find_shape("llama3-tiny");
  s.n_layer = 0;
  EXPECT_FALSE(validate_shape(s));
}

}  // namespace
}  // namespace ecocompute::modelgen
