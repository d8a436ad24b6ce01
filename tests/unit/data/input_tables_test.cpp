// Tests of the tables a question is read with: precisions, model sizes from names, GPU names and
// architectures.
#include <gtest/gtest.h>

#include <cmath>

#include "data/gpu_spec.hpp"
#include "data/model_size.hpp"
#include "util/precision.hpp"

namespace ecocompute::data {
namespace {

TEST(Precision, ParsesClassesAndGgufTypes) {
  EXPECT_EQ(parse_precision("nf4")->name, "NF4");
  EXPECT_EQ(parse_precision("q4_k_m")->name, "Q4_K_M");
  EXPECT_TRUE(parse_precision("Q4_K_M")->is_gguf());
  EXPECT_TRUE(parse_precision("fp16")->is_baseline);
  EXPECT_FALSE(parse_precision("int3"));
  EXPECT_DOUBLE_EQ(weight_gb(7, *parse_precision("INT8")), 7.0);
}

TEST(Precision, ReadsSizesFromModelNames) {
  EXPECT_EQ(params_b_from_model_name("Qwen2.5-14B"), 14.0);
  EXPECT_EQ(params_b_from_model_name("TinyLlama/TinyLlama-1.1B-Chat-v1.0"), 1.1);
  EXPECT_EQ(params_b_from_model_name("Qwen/Qwen2-0.5B"), 0.5);
  EXPECT_EQ(params_b_from_model_name("llama-3-8b-instruct"), 8.0);
  EXPECT_EQ(params_b_from_model_name("Mixtral-8x7B"), 46.7);  // its published total, not 8 × 7
  EXPECT_EQ(params_b_from_model_name("SmolLM-360M"), 0.36);
  EXPECT_FALSE(params_b_from_model_name("gpt2"));
  EXPECT_FALSE(check_params_b(-1, "params_b"));
  EXPECT_FALSE(check_params_b(std::nan(""), "params_b"));
}

TEST(GpuSpec, ResolvesNamesAndArchitectures) {
  EXPECT_EQ(find_gpu("NVIDIA H100 80GB HBM3")->name, "H100 SXM");
  EXPECT_EQ(find_gpu("H100 PCIe")->name, "H100 PCIe");
  EXPECT_EQ(find_gpu("NVIDIA GeForce RTX 4090")->name, "RTX 4090");
  EXPECT_EQ(find_gpu("RTX 4090D")->name, "RTX 4090D");
  EXPECT_EQ(find_gpu("h200")->arch, "hopper");
  EXPECT_EQ(find_gpu("B200")->arch, "blackwell");
  EXPECT_EQ(find_gpu("rtx5090")->arch, "blackwell");
  EXPECT_EQ(find_gpu("Tesla T4")->arch, "turing");
  EXPECT_EQ(find_gpu("A100-SXM4-80GB")->name, "A100 SXM");
  EXPECT_EQ(find_gpu("A800")->arch, "ampere");
  EXPECT_FALSE(find_gpu("Voodoo 5"));
  EXPECT_EQ(*parse_architecture("Ada Lovelace"), "ada");
  EXPECT_EQ(*parse_architecture("sm_90"), "hopper");
  EXPECT_EQ(*resolve_architecture("RTX 4090"), "ada");
  EXPECT_FALSE(parse_architecture("volta9"));
}

}  // namespace
}  // namespace ecocompute::data
