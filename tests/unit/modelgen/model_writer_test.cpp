// Tests of the streaming GGUF writer: layout, metadata, determinism, init scale, llama.cpp loads it.
#include "modelgen/model_writer.hpp"

#include <ggml.h>
#include <gguf.h>
#include <gtest/gtest.h>
#include <llama.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <memory>

#include "engine/llama_backend.hpp"
#include "support/tiny_gguf.hpp"
#include "util/file_io.hpp"

namespace ecocompute::modelgen {
namespace {
namespace fs = std::filesystem;
using engine::testing::TempDir;

const fs::path vocab_dir = fs::path(ECOCOMPUTE_SOURCE_DIR) / "third_party/llama.cpp/models";

struct GgufCloser {
  void operator()(gguf_context* c) const noexcept { gguf_free(c); }
};
using Gguf = std::unique_ptr<gguf_context, GgufCloser>;

Gguf open_gguf(const fs::path& path) {
  gguf_init_params params{true, nullptr};
  return Gguf(gguf_init_from_file(path.c_str(), params));
}

std::string string_key(const gguf_context* ctx, const char* key) {
  const std::int64_t id = gguf_find_key(ctx, key);
  return id < 0 ? std::string() : std::string(gguf_get_val_str(ctx, id));
}

// Reads tensor `name` of `path` as floats (F32 or F16 storage).
std::vector<float> read_tensor(const fs::path& path, const gguf_context* ctx, const char* name) {
  const std::int64_t id = gguf_find_tensor(ctx, name);
  EXPECT_GE(id, 0) << name;
  if (id < 0) return {};
  const ggml_type type = gguf_get_tensor_type(ctx, id);
  const std::size_t bytes = gguf_get_tensor_size(ctx, id);
  std::ifstream in(path, std::ios::binary);
  in.seekg(static_cast<std::streamoff>(gguf_get_data_offset(ctx) + gguf_get_tensor_offset(ctx, id)));
  std::vector<char> raw(bytes);
  in.read(raw.data(), static_cast<std::streamsize>(bytes));
  std::vector<float> values;
  if (type == GGML_TYPE_F32) {
    values.resize(bytes / 4);
    std::memcpy(values.data(), raw.data(), bytes);
  } else {
    EXPECT_EQ(type, GGML_TYPE_F16);
    values.resize(bytes / 2);
    ggml_fp16_to_fp32_row(reinterpret_cast<const ggml_fp16_t*>(raw.data()), values.data(),
                          static_cast<std::int64_t>(values.size()));
  }
  return values;
}

SynthOptions tiny(std::string arch, WeightType type = WeightType::f16, std::uint64_t seed = 7) {
  SynthOptions o;
  o.arch = std::move(arch);
  o.type = type;
  o.seed = seed;
  o.vocab_dir = vocab_dir;
  return o;
}

TEST(ModelWriter, WritesTheShapeTokenizerAndMarks) {
  TempDir dir;
  std::size_t progress_calls = 0;
  std::uint64_t last_bytes = 0;
  SynthOptions options = tiny("llama3-tiny");
  options.on_progress = [&](const WriteProgress& p) {
    ++progress_calls;
    EXPECT_GT(p.bytes_written, last_bytes);
    last_bytes = p.bytes_written;
  };
  auto written = write_synthetic_model(dir / "m.gguf", options);
  ASSERT_TRUE(written) << written.error().describe();
  // token_embd + 2 layers × 9 + output_norm + output = 21 tensors; 16,490,816 parameters (see
  // synthetic_model_test).
  EXPECT_EQ(written->n_tensors, 21U);
  EXPECT_EQ(written->n_params, 16'490'816ULL);
  EXPECT_EQ(progress_calls, 21U);
  EXPECT_EQ(last_bytes, written->file_bytes);
  EXPECT_EQ(fs::file_size(dir / "m.gguf"), written->file_bytes);
  EXPECT_FALSE(fs::exists(dir / "m.gguf.partial"));

  Gguf ctx = open_gguf(dir / "m.gguf");
  ASSERT_TRUE(ctx);
  EXPECT_EQ(gguf_get_n_tensors(ctx.get()), 21);
  EXPECT_EQ(string_key(ctx.get(), "general.architecture"), "llama");
  EXPECT_EQ(string_key(ctx.get(), "general.name"), "synthetic Llama-3 (tiny test shape) shape");
  EXPECT_EQ(string_key(ctx.get(), "ecocompute.weights"), "synthetic");
  EXPECT_EQ(string_key(ctx.get(), "tokenizer.ggml.pre"), "llama-bpe");
  const std::int64_t tokens = gguf_find_key(ctx.get(), "tokenizer.ggml.tokens");
  ASSERT_GE(tokens, 0);
  EXPECT_EQ(gguf_get_arr_n(ctx.get(), tokens), 128256U);
  EXPECT_EQ(gguf_get_tensor_type(ctx.get(), gguf_find_tensor(ctx.get(), "token_embd.weight")), GGML_TYPE_F16);
  EXPECT_EQ(gguf_get_tensor_type(ctx.get(), gguf_find_tensor(ctx.get(), "blk.0.attn_norm.weight")), GGML_TYPE_F32);
  const std::int64_t file_type = gguf_find_key(ctx.get(), "general.file_type");
  ASSERT_GE(file_type, 0);
  EXPECT_EQ(gguf_get_val_u32(ctx.get(), file_type), 1U);  // LLAMA_FTYPE_MOSTLY_F16
}

TEST(ModelWriter, WeightsHaveTheRequestedScale) {
  TempDir dir;
  ModelWriteRequest request;
  request.shape = *find_shape("llama3-tiny");
  request.tokenizer = *read_tokenizer(vocab_dir / "ggml-vocab-llama-bpe.gguf");
  request.type = WeightType::f32;
  request.seed = 1;
  request.init_std = 0.02F;
  ASSERT_TRUE(write_model(dir / "m.gguf", request));
  Gguf ctx = open_gguf(dir / "m.gguf");
  ASSERT_TRUE(ctx);
  for (float v : read_tensor(dir / "m.gguf", ctx.get(), "blk.1.ffn_norm.weight")) ASSERT_EQ(v, 1.0F);
  // Uniform(-a, a) with a = 0.02 × sqrt(3) = 0.034641: every value inside, sd 0.02 within 3 %
  // (the sampling error of the sd over 524,288 values is about 0.1 %).
  const std::vector<float> w = read_tensor(dir / "m.gguf", ctx.get(), "blk.0.ffn_up.weight");
  ASSERT_EQ(w.size(), 64U * 128U);
  double sum2 = 0;
  for (float v : w) {
    ASSERT_LE(std::fabs(v), 0.0346411F);
    sum2 += static_cast<double>(v) * v;
  }
  EXPECT_NEAR(std::sqrt(sum2 / static_cast<double>(w.size())), 0.02, 0.0006);
}

TEST(ModelWriter, SameSeedSameBytesWhateverTheThreads) {
  TempDir dir;
  ModelWriteRequest request;
  request.shape = *find_shape("llama3-tiny");
  request.tokenizer = *read_tokenizer(vocab_dir / "ggml-vocab-llama-bpe.gguf");
  request.seed = 42;
  request.n_threads = 1;
  ASSERT_TRUE(write_model(dir / "a.gguf", request));
  request.n_threads = 5;
  ASSERT_TRUE(write_model(dir / "b.gguf", request));
  request.seed = 43;
  ASSERT_TRUE(write_model(dir / "c.gguf", request));
  EXPECT_EQ(*sha256_file(dir / "a.gguf"), *sha256_file(dir / "b.gguf"));
  EXPECT_NE(*sha256_file(dir / "a.gguf"), *sha256_file(dir / "c.gguf"));
}

TEST(ModelWriter, LlamaCppLoadsAndRunsTheModelWithFiniteLogits) {
  TempDir dir;
  for (const char* arch : {"llama3-tiny", "qwen2-tiny"}) {
    const fs::path path = dir / (std::string(arch) + ".gguf");
    auto written = write_synthetic_model(path, tiny(arch));
    ASSERT_TRUE(written) << written.error().describe();
    engine::ensure_llama_backend();
    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    std::unique_ptr<llama_model, decltype(&llama_model_free)> model(llama_model_load_from_file(path.c_str(), mp),
                                                                   &llama_model_free);
    ASSERT_TRUE(model) << arch;
    EXPECT_EQ(llama_model_n_params(model.get()), written->n_params) << arch;
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = 64;
    cp.n_batch = 64;
    cp.n_threads = 1;
    std::unique_ptr<llama_context, decltype(&llama_free)> ctx(llama_init_from_model(model.get(), cp), &llama_free);
    ASSERT_TRUE(ctx);
    std::vector<llama_token> tokens = {1, 2, 3, 4, 5, 6, 7, 8};
    ASSERT_EQ(llama_decode(ctx.get(), llama_batch_get_one(tokens.data(), static_cast<std::int32_t>(tokens.size()))), 0);
    const float* logits = llama_get_logits_ith(ctx.get(), -1);
    const int n_vocab = llama_vocab_n_tokens(llama_model_get_vocab(model.get()));
    EXPECT_EQ(n_vocab, arch == std::string("qwen2-tiny") ? 151936 : 128256);
    for (int i = 0; i < n_vocab; ++i) ASSERT_TRUE(std::isfinite(logits[i])) << arch << " logit " << i;
  }
}

TEST(ModelWriter, PadsShortTokenizersLikeTheConverter) {
  TokenizerSpec t;
  t.model = "gpt2";
  t.tokens = {"a", "b"};
  t.token_types = {1, 1};
  pad_tokenizer(t, 4);
  EXPECT_EQ(t.tokens, (std::vector<std::string>{"a", "b", "[PAD2]", "[PAD3]"}));
  EXPECT_EQ(t.token_types, (std::vector<std::int32_t>{1, 1, 5, 5}));
  EXPECT_TRUE(t.scores.empty());
}

TEST(ModelWriter, RejectsATokenizerLargerThanTheVocabulary) {
  TempDir dir;
  ModelWriteRequest request;
  request.shape = *find_shape("llama3-tiny");
  request.shape.n_vocab = 1000;
  request.tokenizer = *read_tokenizer(vocab_dir / "ggml-vocab-llama-bpe.gguf");
  auto written = write_model(dir / "m.gguf", request);
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().code(), ErrorCode::invalid_argument);
  EXPECT_NE(written.error().message().find("128256 tokens"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir / "m.gguf"));
}

TEST(ModelWriter, BadVocabFilesGiveErrorsThatNameThem) {
  TempDir dir;
  auto missing = read_tokenizer(dir / "nope.gguf");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), ErrorCode::not_found);
  EXPECT_NE(missing.error().message().find("nope.gguf"), std::string::npos);

  // Every truncation of a real vocab file is refused cleanly.
  const std::string bytes = *read_file(vocab_dir / "ggml-vocab-llama-spm.gguf");
  for (std::size_t length : {std::size_t{0}, std::size_t{3}, std::size_t{24}, std::size_t{1000}, bytes.size() / 2,
                             bytes.size() - 1}) {
    ASSERT_TRUE(write_file_atomic(dir / "cut.gguf", std::string_view(bytes).substr(0, length)));
    auto cut = read_tokenizer(dir / "cut.gguf");
    ASSERT_FALSE(cut) << length;
    EXPECT_EQ(cut.error().code(), ErrorCode::invalid_input) << length;
  }
  auto whole = read_tokenizer(vocab_dir / "ggml-vocab-llama-spm.gguf");
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->model, "llama");
  EXPECT_EQ(whole->tokens.size(), 32000U);
  EXPECT_EQ(whole->scores.size(), 32000U);
  EXPECT_EQ(whole->bos_id, 1U);
}

TEST(ModelWriter, VocabSearchNamesTheFoldersTried) {
  TempDir dir;
  auto found = find_vocab_file("qwen2", vocab_dir);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->filename(), "ggml-vocab-qwen2.gguf");
  auto missing = find_vocab_file("qwen2", dir.path());
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), ErrorCode::not_found);
  EXPECT_NE(missing.error().message().find(dir.path().string()), std::string::npos);
}

TEST(ModelWriter, ParsesWeightTypes) {
  EXPECT_EQ(*parse_weight_type("F16"), WeightType::f16);
  EXPECT_EQ(*parse_weight_type("bf16"), WeightType::bf16);
  EXPECT_EQ(*parse_weight_type("f32"), WeightType::f32);
  auto bad = parse_weight_type("q4_0");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("q4_0"), std::string::npos);
}

}  // namespace
}  // namespace ecocompute::modelgen
