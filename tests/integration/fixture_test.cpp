// Integration test of the committed trained fixture (data/fixture/), run on the CPU with llama.cpp
// directly: its marks and size, perplexity on the held-out text far below the vocabulary size, and
// Q8_0 costing less quality (ΔPPL and KL divergence) than Q4_K_M.
#include <ggml.h>
#include <gguf.h>
#include <gtest/gtest.h>
#include <llama.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "engine/llama_backend.hpp"
#include "modelgen/model_writer.hpp"
#include "util/file_io.hpp"
#include "support/data_paths.hpp"

namespace ecocompute::engine {
namespace {
namespace fs = std::filesystem;
using ::ecocompute::testing::kFixtureModel;

const fs::path heldout_path = fs::path(ECOCOMPUTE_SOURCE_DIR) / "data/corpora/quality/kjv-ruth-ecclesiastes.txt";
constexpr int window_tokens = 256;        // the fixture's training window; each window starts with BOS
constexpr std::size_t max_windows = 24;   // 24 × 255 = 6,120 scored tokens keep the test short

struct ModelDeleter {
  void operator()(llama_model* m) const noexcept { llama_model_free(m); }
};
struct ContextDeleter {
  void operator()(llama_context* c) const noexcept { llama_free(c); }
};
struct GgufDeleter {
  void operator()(gguf_context* c) const noexcept { gguf_free(c); }
};

class LoadedModel {
 public:
  explicit LoadedModel(const fs::path& path) {
    ensure_llama_backend();
    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    model_.reset(llama_model_load_from_file(path.c_str(), mp));
    if (!model_) return;
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = window_tokens;
    cp.n_batch = window_tokens;
    cp.n_ubatch = window_tokens;
    cp.n_threads = 1;  // tests run two at a time on two cores; llama.cpp's workers spin at barriers
    cp.n_threads_batch = 1;
    cp.no_perf = true;
    ctx_.reset(llama_init_from_model(model_.get(), cp));
  }
  [[nodiscard]] bool ok() const { return model_ && ctx_; }
  [[nodiscard]] const llama_vocab* vocab() const { return llama_model_get_vocab(model_.get()); }

  // Evaluates one window and returns log-softmax rows for every position (n × n_vocab).
  std::vector<double> log_probs(std::vector<llama_token> window) {
    llama_memory_clear(llama_get_memory(ctx_.get()), true);
    const int n = static_cast<int>(window.size());
    const int n_vocab = llama_vocab_n_tokens(vocab());
    llama_batch batch = llama_batch_init(n, 0, 1);
    for (int i = 0; i < n; ++i) {
      batch.token[i] = window[static_cast<std::size_t>(i)];
      batch.pos[i] = i;
      batch.n_seq_id[i] = 1;
      batch.seq_id[i][0] = 0;
      batch.logits[i] = 1;
    }
    batch.n_tokens = n;
    const int rc = llama_decode(ctx_.get(), batch);
    llama_batch_free(batch);
    EXPECT_EQ(rc, 0);
    std::vector<double> out(static_cast<std::size_t>(n) * static_cast<std::size_t>(n_vocab));
    for (int i = 0; i < n; ++i) {
      const float* logits = llama_get_logits_ith(ctx_.get(), i);
      double max = logits[0];
      for (int v = 1; v < n_vocab; ++v) max = std::max(max, static_cast<double>(logits[v]));
      double sum = 0;
      for (int v = 0; v < n_vocab; ++v) sum += std::exp(logits[v] - max);
      const double log_z = max + std::log(sum);
      for (int v = 0; v < n_vocab; ++v) out[static_cast<std::size_t>(i) * n_vocab + v] = logits[v] - log_z;
    }
    return out;
  }

 private:
  std::unique_ptr<llama_model, ModelDeleter> model_;
  std::unique_ptr<llama_context, ContextDeleter> ctx_;
};

fs::path quantize(const fs::path& dir, llama_ftype type, const char* name) {
  llama_model_quantize_params params = llama_model_quantize_default_params();
  params.ftype = type;
  params.nthread = 2;
  const fs::path out = dir / name;
  EXPECT_EQ(llama_model_quantize(kFixtureModel.c_str(), out.c_str(), &params), 0u) << name;
  return out;
}

TEST(Fixture, IsMarkedSmallAndCarriesItsOwnTokenizer) {
  ASSERT_TRUE(fs::exists(kFixtureModel)) << "missing " << kFixtureModel << " (see data/fixture/RECIPE.md)";
  EXPECT_LE(fs::file_size(kFixtureModel), 15U * 1000U * 1000U);
  gguf_init_params params{true, nullptr};
  std::unique_ptr<gguf_context, GgufDeleter> ctx(gguf_init_from_file(kFixtureModel.c_str(), params));
  ASSERT_TRUE(ctx);
  const std::int64_t weights = gguf_find_key(ctx.get(), std::string(weights_metadata_key).c_str());
  ASSERT_GE(weights, 0);
  EXPECT_EQ(std::string(gguf_get_val_str(ctx.get(), weights)), weights_trained_fixture);
  EXPECT_EQ(std::string(gguf_get_val_str(ctx.get(), gguf_find_key(ctx.get(), "general.architecture"))), "llama");
  EXPECT_EQ(std::string(gguf_get_val_str(ctx.get(), gguf_find_key(ctx.get(), "tokenizer.ggml.model"))), "llama");
  EXPECT_EQ(gguf_get_arr_n(ctx.get(), gguf_find_key(ctx.get(), "tokenizer.ggml.tokens")), 1024U);
  EXPECT_EQ(gguf_get_tensor_type(ctx.get(), gguf_find_tensor(ctx.get(), "blk.0.ffn_up.weight")), GGML_TYPE_F16);
}

TEST(Fixture, HeldOutPerplexityIsLowAndQuantizationCostsQualityInOrder) {
  ASSERT_TRUE(fs::exists(kFixtureModel)) << "missing " << kFixtureModel << " (see data/fixture/RECIPE.md)";
  const fs::path dir = fs::temp_directory_path() / ("ecocompute-fixture-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path q8 = quantize(dir, LLAMA_FTYPE_MOSTLY_Q8_0, "q8_0.gguf");
  const fs::path q4 = quantize(dir, LLAMA_FTYPE_MOSTLY_Q4_K_M, "q4_k_m.gguf");
  LoadedModel base(kFixtureModel);
  LoadedModel m8(q8);
  LoadedModel m4(q4);
  ASSERT_TRUE(base.ok() && m8.ok() && m4.ok());

  const std::string text = *read_file(heldout_path);
  std::vector<llama_token> tokens(text.size() + 2);
  const int n = llama_tokenize(base.vocab(), text.data(), static_cast<std::int32_t>(text.size()), tokens.data(),
                               static_cast<std::int32_t>(tokens.size()), false, false);
  ASSERT_GT(n, window_tokens);
  tokens.resize(static_cast<std::size_t>(n));
  const int n_vocab = llama_vocab_n_tokens(base.vocab());
  const llama_token bos = llama_vocab_bos(base.vocab());

  // Windows: BOS then 255 text tokens; every text token of a window is scored once.
  double nll[3] = {0, 0, 0};
  double kl[2] = {0, 0};
  std::int64_t scored = 0;
  const std::size_t step = window_tokens - 1;
  for (std::size_t start = 0, w = 0; start + step <= tokens.size() && w < max_windows; start += step, ++w) {
    std::vector<llama_token> window{bos};
    window.insert(window.end(), tokens.begin() + static_cast<std::ptrdiff_t>(start),
                  tokens.begin() + static_cast<std::ptrdiff_t>(start + step));
    const std::vector<double> lp[3] = {base.log_probs(window), m8.log_probs(window), m4.log_probs(window)};
    for (std::size_t i = 0; i + 1 < window.size(); ++i) {
      const std::size_t row = i * static_cast<std::size_t>(n_vocab);
      const auto target = static_cast<std::size_t>(window[i + 1]);
      for (int m = 0; m < 3; ++m) nll[m] -= lp[m][row + target];
      for (int m = 0; m < 2; ++m) {
        for (int v = 0; v < n_vocab; ++v) {
          const double p = std::exp(lp[0][row + v]);
          kl[m] += p * (lp[0][row + v] - lp[m + 1][row + v]);
        }
      }
      ++scored;
    }
  }
  fs::remove_all(dir);
  ASSERT_GT(scored, 0);
  const double ppl_f16 = std::exp(nll[0] / scored);
  const double ppl_q8 = std::exp(nll[1] / scored);
  const double ppl_q4 = std::exp(nll[2] / scored);
  const double kld_q8 = kl[0] / scored;
  const double kld_q4 = kl[1] / scored;
  std::printf("fixture held-out (%lld tokens): PPL F16 %.4f  Q8_0 %.4f (%+.4f %%, KLD %.6f)  Q4_K_M %.4f (%+.4f %%, "
              "KLD %.6f)\n",
              static_cast<long long>(scored), ppl_f16, ppl_q8, 100 * (ppl_q8 / ppl_f16 - 1), kld_q8, ppl_q4,
              100 * (ppl_q4 / ppl_f16 - 1), kld_q4);
  EXPECT_LT(ppl_f16, n_vocab / 4.0);  // 1024 pieces: a uniform guess has perplexity 1024
  EXPECT_GT(ppl_q8, ppl_f16);
  EXPECT_LT(ppl_q8 - ppl_f16, ppl_q4 - ppl_f16);
  EXPECT_GT(kld_q8, 0.0);
  EXPECT_LT(kld_q8, kld_q4);
}

}  // namespace
}  // namespace ecocompute::engine
