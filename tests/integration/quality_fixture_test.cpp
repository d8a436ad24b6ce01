// Integration test of the quality probe on the trained fixture model with the CPU llama.cpp engine:
// perplexity far below the vocabulary size, and Q8_0 costing less quality than Q4_K_M.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/gguf_inspection.hpp"
#include "engine/llama_engine.hpp"
#include "engine/quantization_cache.hpp"
#include "quality/corpus.hpp"
#include "quality/quality_probe.hpp"

namespace ecocompute::quality {
namespace {
namespace fs = std::filesystem;

// The fixture's source GGUF: the first data/fixture/*.gguf, by name, holding unquantized weights
// (F32, F16 or BF16) that Q8_0 and Q4_K_M can be made from.
std::optional<fs::path> fixture_model() {
  const fs::path dir = fs::path(ECOCOMPUTE_SOURCE_DIR) / "data" / "fixture";
  std::vector<fs::path> models;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".gguf") models.push_back(it->path());
  }
  std::sort(models.begin(), models.end());
  for (const auto& model : models) {
    auto inspection = engine::inspect_gguf(model);
    if (inspection &&
        (inspection->type == GgufType::F32 || inspection->type == GgufType::F16 ||
         inspection->type == GgufType::BF16)) {
      return model;
    }
  }
  return std::nullopt;
}

std::unique_ptr<engine::Engine> open(const fs::path& model, std::uint32_t n_ctx) {
  engine::LoadOptions options;
  options.model = model;
  options.n_ctx = n_ctx;
  options.n_batch = n_ctx;
  auto opened = engine::open_llama_engine(options);
  EXPECT_TRUE(opened.has_value()) << (opened ? "" : opened.error().describe());
  return opened ? std::move(*opened) : nullptr;
}

TEST(QualityFixture, QuantizationCostsQualityInOrder) {
  const auto source = fixture_model();
  if (!source) GTEST_SKIP() << "no unquantized fixture model in data/fixture/";
  auto corpus = load_corpus_or_default({});
  ASSERT_TRUE(corpus.has_value()) << corpus.error().describe();

  const fs::path cache_dir =
      fs::temp_directory_path() / ("eco_quality_fixture_" + std::to_string(::getpid()));
  engine::QuantizationCache cache(cache_dir);
  auto q8 = cache.prepare(*source, GgufType::Q8_0);
  ASSERT_TRUE(q8.has_value()) << q8.error().describe();
  auto q4 = cache.prepare(*source, GgufType::Q4_K_M);
  ASSERT_TRUE(q4.has_value()) << q4.error().describe();

  WindowPolicy policy;
  policy.seq_len = 256;
  policy.stride = 128;
  policy.add_bos = true;
  policy.max_tokens = 16384;
  auto baseline = open(*source, static_cast<std::uint32_t>(policy.seq_len));
  auto q8_engine = open(q8->path, static_cast<std::uint32_t>(policy.seq_len));
  auto q4_engine = open(q4->path, static_cast<std::uint32_t>(policy.seq_len));
  ASSERT_TRUE(baseline && q8_engine && q4_engine);

  std::vector<engine::Engine*> candidates{q8_engine.get(), q4_engine.get()};
  auto results = probe_quality(*baseline, candidates, *corpus, policy);
  fs::remove_all(cache_dir);
  ASSERT_TRUE(results.has_value()) << results.error().describe();
  ASSERT_EQ(results->size(), 3u);
  const QualityResult& base = (*results)[0];
  const QualityResult& r8 = (*results)[1];
  const QualityResult& r4 = (*results)[2];
  for (const auto& r : *results) {
    std::printf("%-7s PPL %.4f ± %.4f  ΔPPL %+.3f ± %.3f %%  KLD %.6f  top-1 %.2f %%  (%lld tokens)\n",
                r.precision.c_str(), r.perplexity.value, r.perplexity.standard_error, r.delta_ppl_pct.value,
                r.delta_ppl_pct.standard_error, r.kld ? r.kld->value : 0.0,
                r.top1_agreement_pct ? r.top1_agreement_pct->value : 100.0,
                static_cast<long long>(r.tokens_evaluated));
  }

  // A model that learned anything predicts far better than a uniform guess over its vocabulary.
  const double n_vocab = baseline->model().n_vocab;
  EXPECT_LT(base.perplexity.value, n_vocab / 4.0);
  EXPECT_GT(base.tokens_evaluated, 1000);
  // Coarser weights cost more: 0 < ΔPPL(Q8_0) < ΔPPL(Q4_K_M), and the KLD in the same order.
  EXPECT_GT(r8.delta_ppl_pct.value, 0.0);
  EXPECT_LT(r8.delta_ppl_pct.value, r4.delta_ppl_pct.value);
  ASSERT_TRUE(r8.kld && r4.kld);
  EXPECT_GT(r8.kld->value, 0.0);
  EXPECT_LT(r8.kld->value, r4.kld->value);
  EXPECT_GT(r8.top1_agreement_pct->value, r4.top1_agreement_pct->value);
}

}  // namespace
}  // namespace ecocompute::quality
