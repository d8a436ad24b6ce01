// Tests of the Hugging Face config of a synthetic shape: the parameters a transformers model built from
// it would have (counted from the config alone, as LlamaForCausalLM / Qwen2ForCausalLM lay them out)
// equal the GGUF shape's, for every known shape; and the fields transformers reads are named as it reads them.
#include "modelgen/hf_config.hpp"

#include <gtest/gtest.h>

namespace ecocompute::modelgen {
namespace {

std::uint64_t parameters_of(const OrderedJson& c) {
  const auto n = [&c](const char* key) { return c.at(key).get<std::uint64_t>(); };
  const std::uint64_t hidden = n("hidden_size"), head_dim = n("head_dim");
  const std::uint64_t q = n("num_attention_heads") * head_dim, kv = n("num_key_value_heads") * head_dim;
  const bool bias = c.at("model_type") == "qwen2" || c.value("attention_bias", false);
  const std::uint64_t attention = hidden * q + 2 * hidden * kv + q * hidden + (bias ? q + 2 * kv : 0);
  const std::uint64_t layer = attention + 3 * hidden * n("intermediate_size") + 2 * hidden;
  const std::uint64_t embeddings = n("vocab_size") * hidden * (c.at("tie_word_embeddings").get<bool>() ? 1 : 2);
  return embeddings + n("num_hidden_layers") * layer + hidden;
}

TEST(HfConfig, EveryShapesConfigBuildsTheSameParameterCount) {
  for (const ModelShape& shape : known_shapes()) {
    EXPECT_EQ(parameters_of(hf_config(shape)), parameter_count(shape)) << shape.id;
  }
}

TEST(HfConfig, LlamaAndQwenFieldsAreThoseTransformersReads) {
  const OrderedJson llama = hf_config(*find_shape("llama3-8b"));
  EXPECT_EQ(llama["architectures"][0], "LlamaForCausalLM");
  EXPECT_EQ(llama["num_key_value_heads"], 8);
  EXPECT_EQ(llama["intermediate_size"], 14336);
  EXPECT_DOUBLE_EQ(llama["rope_theta"].get<double>(), 500000.0);
  EXPECT_FALSE(llama["tie_word_embeddings"].get<bool>());
  EXPECT_FALSE(llama["attention_bias"].get<bool>());

  const OrderedJson qwen = hf_config(*find_shape("qwen2-0.5b"));
  EXPECT_EQ(qwen["model_type"], "qwen2");
  EXPECT_EQ(qwen["vocab_size"], 151936);
  EXPECT_TRUE(qwen["tie_word_embeddings"].get<bool>());
  EXPECT_FALSE(qwen.contains("attention_bias"));  // Qwen2 always has q/k/v biases
}

}  // namespace
}  // namespace ecocompute::modelgen
