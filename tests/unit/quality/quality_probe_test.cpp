// Tests of the quality probe on BigramEngine fakes, against hand-computed perplexity, KLD and top-1.
#include "quality/quality_probe.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <string>
#include <vector>

#include "bigram_engine.hpp"
#include "window_policy.hpp"

namespace ecocompute::quality {
namespace {

using testing::BigramEngine;
using testing::policy;
using testing::log_row;

const double ln3 = std::log(3.0);
constexpr double tight = 1e-6;  // float logits carry ln p to ~1e-7

// Baseline B, rows by current token (a = 0, b = 1, c = 2, c also BOS):
//   after a: (1/4, 1/2, 1/4)   after b: (1/2, 1/4, 1/4)   after c: (1/2, 1/4, 1/4)
std::vector<std::vector<float>> baseline_rows() {
  return {log_row({0.25, 0.5, 0.25}), log_row({0.5, 0.25, 0.25}), log_row({0.5, 0.25, 0.25})};
}
// Candidate C: after a: (1/2, 1/4, 1/4) (the baseline's a-row with a and b swapped),
//              after b: (1/2, 1/4, 1/4) (equal to the baseline), after c: uniform.
std::vector<std::vector<float>> candidate_rows() {
  return {log_row({0.5, 0.25, 0.25}), log_row({0.5, 0.25, 0.25}), log_row({1.0 / 3, 1.0 / 3, 1.0 / 3})};
}


// A deterministic a/b/c text of n letters (a linear congruential sequence).
std::string letters(int n) {
  std::string text;
  unsigned state = 12345;
  for (int i = 0; i < n; ++i) {
    state = state * 1103515245u + 12345u;
    text += static_cast<char>('a' + (state >> 16) % 3);
  }
  return text;
}

Result<std::vector<QualityResult>> probe(BigramEngine& base, std::vector<engine::Engine*> candidates,
                                         const std::string& text, const WindowPolicy& p,
                                         const ProbeOptions& options = {}) {
  return probe_quality(base, candidates, make_corpus("test.txt", text), p, options);
}

// Expects `result` to be an error of `code` whose description contains `text`.
template <typename T>
void expect_error(const Result<T>& result, ErrorCode code, const std::string& text) {
  ASSERT_FALSE(result.has_value());
  EXPECT_EQ(result.error().code(), code);
  EXPECT_NE(result.error().describe().find(text), std::string::npos) << result.error().describe();
}

TEST(QualityProbe, HandComputedWithoutBos) {
  BigramEngine base("F16", baseline_rows());
  BigramEngine cand("Q4_K_M", candidate_rows());
  // "abba" in one window; targets b (after a), b (after b), a (after b); the first a is unscored.
  auto results = probe(base, {&cand}, "abba", policy(8, 4, false));
  ASSERT_TRUE(results.has_value()) << results.error().describe();
  ASSERT_EQ(results->size(), 2u);

  const QualityResult& b = (*results)[0];
  EXPECT_EQ(b.precision, "F16");
  EXPECT_EQ(b.baseline, "F16");
  EXPECT_EQ(b.corpus.name, "test.txt");
  EXPECT_EQ(b.corpus.bytes, 4u);
  EXPECT_EQ(b.tokens_evaluated, 3);
  EXPECT_EQ(b.windows, 1);
  EXPECT_FALSE(b.policy.add_bos);
  // Baseline NLL: −ln ½, −ln ¼, −ln ½ = (1, 2, 1)·ln2; mean 4/3·ln2 = 0.924196.
  EXPECT_NEAR(b.mean_nll, 4.0 / 3 * std::numbers::ln2, tight);
  // PPL 2^(4/3) = 2.519842; SE(mean NLL) = SD/√3 = (ln2/√3)/√3 = ln2/3; SE(PPL) = 2.519842·ln2/3 = 0.582207.
  EXPECT_NEAR(b.perplexity.value, 2.5198421, tight);
  EXPECT_NEAR(b.perplexity.standard_error, 0.5822071, tight);
  EXPECT_EQ(b.delta_ppl_pct.value, 0.0);
  EXPECT_EQ(b.delta_ppl_pct.standard_error, 0.0);
  EXPECT_FALSE(b.kld.has_value());
  EXPECT_FALSE(b.kld_p99.has_value());
  EXPECT_FALSE(b.top1_agreement_pct.has_value());

  const QualityResult& c = (*results)[1];
  EXPECT_EQ(c.precision, "Q4_K_M");
  EXPECT_EQ(c.baseline, "F16");
  EXPECT_EQ(c.tokens_evaluated, 3);
  // Candidate NLL: −ln ¼, −ln ¼, −ln ½ = (2, 2, 1)·ln2; mean 5/3·ln2; PPL 2^(5/3) = 3.174802.
  EXPECT_NEAR(c.mean_nll, 5.0 / 3 * std::numbers::ln2, tight);
  EXPECT_NEAR(c.perplexity.value, 3.1748021, tight);
  EXPECT_NEAR(c.baseline_mean_nll, 4.0 / 3 * std::numbers::ln2, tight);
  EXPECT_NEAR(c.baseline_perplexity.value, 2.5198421, tight);
  // ΔNLL = (1, 0, 0)·ln2: mean ln2/3, SE ln2/3. ΔPPL % = 100(2^(1/3) − 1) = 25.992105;
  // SE = 100 · 2^(1/3) · ln2/3 = 29.110357.
  EXPECT_NEAR(c.delta_ppl_pct.value, 25.992105, 1e-4);
  EXPECT_NEAR(c.delta_ppl_pct.standard_error, 29.110357, 1e-4);
  // KL after a: ¼ ln(¼/½) + ½ ln(½/¼) + ¼ ln 1 = ln2/4 = 0.173287; after b: 0 (same rows).
  // Per token (ln2/4, 0, 0): mean ln2/12 = 0.057762, SE = (ln2/4)/√3/√3 = ln2/12.
  ASSERT_TRUE(c.kld.has_value());
  EXPECT_NEAR(c.kld->value, std::numbers::ln2 / 12, tight);
  EXPECT_NEAR(c.kld->standard_error, std::numbers::ln2 / 12, tight);
  // p99 of sorted (0, 0, ln2/4): h = 2 · 0.99 = 1.98 → 0 + 0.98 · ln2/4 = 0.169821.
  ASSERT_TRUE(c.kld_p99.has_value());
  EXPECT_NEAR(*c.kld_p99, 0.98 * std::numbers::ln2 / 4, tight);
  // Argmax after a: baseline b, candidate a (disagree); after b: a and a, twice. (0, 100, 100):
  // mean 66.667 %, SD 57.735, SE 57.735/√3 = 33.333.
  ASSERT_TRUE(c.top1_agreement_pct.has_value());
  EXPECT_NEAR(c.top1_agreement_pct->value, 200.0 / 3, 1e-9);
  EXPECT_NEAR(c.top1_agreement_pct->standard_error, 100.0 / 3, 1e-9);
}

TEST(QualityProbe, BosIsPrependedAndItsSuccessorScored) {
  BigramEngine base("F16", baseline_rows(), /*bos=*/2);
  BigramEngine cand("Q8_0", candidate_rows(), /*bos=*/2);
  auto results = probe(base, {&cand}, "abba", policy(8, 4, true));
  ASSERT_TRUE(results.has_value()) << results.error().describe();
  ASSERT_EQ(base.evaluated.size(), 1u);
  EXPECT_EQ(base.evaluated[0], (std::vector<engine::Token>{2, 0, 1, 1, 0}));
  EXPECT_EQ(cand.evaluated[0], base.evaluated[0]);
  const QualityResult& b = (*results)[0];
  EXPECT_TRUE(b.policy.add_bos);
  EXPECT_EQ(b.tokens_evaluated, 4);
  // Targets a (after BOS = c), b, b, a: NLL (1, 1, 2, 1)·ln2; mean 5/4·ln2 = 0.866434; PPL 2^(5/4)
  // = 2.378414.
  EXPECT_NEAR(b.mean_nll, 1.25 * std::numbers::ln2, tight);
  EXPECT_NEAR(b.perplexity.value, 2.3784142, tight);
  // SD = ½·ln2, SE(mean) = ¼·ln2; SE(PPL) = 2.378414 · 0.173287 = 0.412148.
  EXPECT_NEAR(b.perplexity.standard_error, 0.4121478, tight);
  // KL after c: ln3 − H(½, ¼, ¼) = ln3 − 1.5·ln2 = 0.058892; then ln2/4, 0, 0 → mean 0.0580446.
  EXPECT_NEAR((*results)[1].kld->value, (ln3 - 1.5 * std::numbers::ln2 + std::numbers::ln2 / 4) / 4, tight);
  // Argmax after c: baseline a, uniform candidate a (lowest id among ties): agree; then 0, 100, 100.
  EXPECT_NEAR((*results)[1].top1_agreement_pct->value, 75.0, 1e-9);
}

// A bigram model ignores context, so however the windows fall, scoring each target exactly once gives
// the NLL of the whole stream: mean over i ≥ 1 of −ln B[t(i−1)][t(i)] (i ≥ 0 with BOS).
TEST(QualityProbe, WindowedScoresEqualTheWholeStreamForAnyStride) {
  const std::string text = letters(101);
  const auto rows = baseline_rows();
  for (bool add_bos : {false, true}) {
    double sum = 0;
    std::int64_t count = 0;
    for (std::size_t i = add_bos ? 0 : 1; i < text.size(); ++i) {
      const int previous = i == 0 ? 2 : text[i - 1] - 'a';  // BOS is token 2
      sum -= static_cast<double>(
          rows[static_cast<std::size_t>(previous)][static_cast<std::size_t>(text[i] - 'a')]);
      ++count;
    }
    // With BOS, stride = seq_len − 1 would predict each window's first target from the BOS instead of
    // its predecessor (disjoint windows), so the largest stride here keeps one token of context.
    const int widest = add_bos ? 14 : 15;
    for (auto [seq_len, stride] : {std::pair{2, 1}, {5, 1}, {7, 3}, {16, 8}, {16, widest}, {200, 50}}) {
      if (add_bos && seq_len == 2) continue;  // seq_len 2 with BOS has stride 1 = seq_len − 1: disjoint
      BigramEngine base("F16", rows);
      auto result = probe_perplexity(base, make_corpus("t", text), policy(seq_len, stride, add_bos));
      ASSERT_TRUE(result.has_value()) << result.error().describe();
      EXPECT_EQ(result->tokens_evaluated, count) << seq_len << "/" << stride;
      // The log-sum-exp of a row is ln 1 up to float rounding of ln p.
      EXPECT_NEAR(result->mean_nll, sum / static_cast<double>(count), tight) << seq_len << "/" << stride;
      EXPECT_EQ(result->windows, static_cast<std::int32_t>(base.evaluated.size()));
      for (const auto& window : base.evaluated) EXPECT_LE(window.size(), static_cast<std::size_t>(seq_len));
    }
  }
}

TEST(QualityProbe, IdenticalEnginesHaveZeroDivergenceAndFullAgreement) {
  BigramEngine base("F16", baseline_rows());
  BigramEngine same("Q8_0", baseline_rows());
  auto results = probe(base, {&same}, letters(300), policy(32, 16, true));
  ASSERT_TRUE(results.has_value()) << results.error().describe();
  const QualityResult& c = (*results)[1];
  // Same logits → every log-probability difference is exactly 0, every argmax equal.
  EXPECT_EQ(c.kld->value, 0.0);
  EXPECT_EQ(c.kld->standard_error, 0.0);
  EXPECT_EQ(*c.kld_p99, 0.0);
  EXPECT_EQ(c.top1_agreement_pct->value, 100.0);
  EXPECT_EQ(c.top1_agreement_pct->standard_error, 0.0);
  EXPECT_EQ(c.delta_ppl_pct.value, 0.0);
  EXPECT_EQ(c.delta_ppl_pct.standard_error, 0.0);
  EXPECT_EQ(c.perplexity.value, (*results)[0].perplexity.value);
}

TEST(QualityProbe, SeveralCandidatesInOnePassShareTheBaselineWindows) {
  BigramEngine base("F16", baseline_rows());
  BigramEngine same("Q8_0", baseline_rows());
  BigramEngine other("Q4_K_M", candidate_rows());
  auto results = probe(base, {&same, &other}, letters(300), policy(32, 16, true));
  ASSERT_TRUE(results.has_value()) << results.error().describe();
  ASSERT_EQ(results->size(), 3u);
  EXPECT_EQ((*results)[1].precision, "Q8_0");
  EXPECT_EQ((*results)[2].precision, "Q4_K_M");
  EXPECT_EQ((*results)[1].kld->value, 0.0);
  EXPECT_GT((*results)[2].kld->value, 0.0);
  EXPECT_LT((*results)[2].top1_agreement_pct->value, 100.0);
  // The baseline is evaluated once per window, not once per candidate; all see the same windows.
  EXPECT_EQ(base.evaluated.size(), static_cast<std::size_t>((*results)[0].windows));
  EXPECT_EQ(same.evaluated, base.evaluated);
  EXPECT_EQ(other.evaluated, base.evaluated);
  // One candidate at a time gives the same numbers.
  BigramEngine base2("F16", baseline_rows());
  BigramEngine other2("Q4_K_M", candidate_rows());
  auto alone = probe(base2, {&other2}, letters(300), policy(32, 16, true));
  ASSERT_TRUE(alone.has_value());
  EXPECT_EQ((*alone)[1].kld->value, (*results)[2].kld->value);
  EXPECT_EQ((*alone)[1].delta_ppl_pct.value, (*results)[2].delta_ppl_pct.value);
}

TEST(QualityProbe, MaxTokensCapsTheStream) {
  BigramEngine base("F16", baseline_rows());
  WindowPolicy p = policy(16, 8, false);
  p.max_tokens = 40;
  auto result = probe_perplexity(base, make_corpus("t", letters(300)), p);
  ASSERT_TRUE(result.has_value());
  EXPECT_EQ(result->tokens_evaluated, 39);  // 40 tokens, the first unscored without BOS
  EXPECT_EQ(result->policy.max_tokens, 40);
}

TEST(QualityProbe, CandidateFailingMidProbeIsAnErrorNamingWindowAndEngine) {
  BigramEngine base("F16", baseline_rows());
  BigramEngine cand("Q4_K_M", candidate_rows());
  cand.fail_on_call = 2;
  // 100 tokens, 15 per window after BOS, stride 8: windows begin at 0, 8, … 88 (ending at 100): 12.
  // Evaluation order: baseline w1, candidate w1, baseline w2, candidate w2 (its second call).
  auto results = probe(base, {&cand}, letters(100), policy(16, 8, true));
  expect_error(results, ErrorCode::engine,
               "quality probe, window 2/12 on Q4_K_M: evaluation failed: fake device lost");
}

TEST(QualityProbe, BaselineFailureIsAnError) {
  BigramEngine base("F16", baseline_rows());
  base.fail_on_call = 1;
  BigramEngine cand("Q8_0", baseline_rows());
  auto results = probe(base, {&cand}, letters(100), policy(16, 8, true));
  expect_error(results, ErrorCode::engine, "window 1/12 on F16");
  EXPECT_TRUE(cand.evaluated.empty());
}

TEST(QualityProbe, MissingLogitsAreAnError) {
  BigramEngine base("F16", baseline_rows());
  base.drop_last_on_call = 1;
  auto result = probe_perplexity(base, make_corpus("t", letters(50)), policy(16, 8, true));
  expect_error(result, ErrorCode::engine, "logits for 15 of 16 positions");
}

TEST(QualityProbe, NonFiniteLogitsAreAnError) {
  BigramEngine base("F16", baseline_rows());
  BigramEngine cand("Q2_K", candidate_rows());
  cand.nan_on_call = 1;
  auto results = probe(base, {&cand}, letters(50), policy(16, 8, true));
  expect_error(results, ErrorCode::invalid_input, "non-finite");
}

TEST(QualityProbe, VocabularySizeMismatchIsAnError) {
  BigramEngine base("F16", baseline_rows());
  BigramEngine wider("Q8_0", {log_row({0.25, 0.25, 0.25, 0.25}), log_row({0.25, 0.25, 0.25, 0.25}),
                              log_row({0.25, 0.25, 0.25, 0.25})});
  auto results = probe(base, {&wider}, letters(50), policy(16, 8, true));
  expect_error(results, ErrorCode::engine, "have 4 entries, expected 3");
}

TEST(QualityProbe, DifferentTokenizationIsRefused) {
  BigramEngine base("F16", baseline_rows());
  BigramEngine shifted("Q8_0", baseline_rows());
  shifted.first_letter = 'b';  // 'b' → 0: "bc" tokenizes as (0, 1), not (1, 2)
  auto results = probe(base, {&shifted}, "bcbc", policy(8, 4, true));
  expect_error(results, ErrorCode::invalid_argument, "tokenizes quality text test.txt differently");
  EXPECT_TRUE(base.evaluated.empty());
}

TEST(QualityProbe, UntokenizableTextNamesTheCorpus) {
  BigramEngine base("F16", baseline_rows());
  auto result = probe_perplexity(base, make_corpus("odd.txt", "abz"), policy(8, 4, true));
  expect_error(result, ErrorCode::invalid_input, "odd.txt");
}

TEST(QualityProbe, ContextSmallerThanTheWindowIsRefused) {
  BigramEngine base("F16", baseline_rows());
  base.n_ctx = 8;
  auto result = probe_perplexity(base, make_corpus("t", letters(50)), policy(16, 8, true));
  expect_error(result, ErrorCode::invalid_argument, "fewer than the quality seq_len 16");
}

TEST(QualityProbe, BosPolicyWithoutBosTokenIsRefused) {
  BigramEngine base("F16", baseline_rows(), /*bos=*/-1);
  auto refused = probe_perplexity(base, make_corpus("t", "abab"), policy(8, 4, true));
  expect_error(refused, ErrorCode::invalid_argument, "no BOS token");
  EXPECT_TRUE(probe_perplexity(base, make_corpus("t", "abab"), policy(8, 4, false)).has_value());
}

TEST(QualityProbe, NullCandidateIsRefused) {
  BigramEngine base("F16", baseline_rows());
  auto results = probe(base, {nullptr}, "abab", policy(8, 4, true));
  expect_error(results, ErrorCode::invalid_argument, "candidate 0 is null");
}

TEST(QualityProbe, ProgressAndCancellation) {
  BigramEngine base("F16", baseline_rows());
  std::vector<std::pair<int, int>> seen;
  ProbeOptions options;
  options.on_progress = [&](const ProbeProgress& p) { seen.emplace_back(p.window, p.windows); };
  auto result = probe_quality(base, {}, make_corpus("t", letters(40)), policy(16, 8, true), options);
  ASSERT_TRUE(result.has_value());
  // 40 tokens, 15 per window, stride 8: windows end at 15, 23, 31, 39, 40.
  EXPECT_EQ(seen, (std::vector<std::pair<int, int>>{{1, 5}, {2, 5}, {3, 5}, {4, 5}, {5, 5}}));

  BigramEngine base2("F16", baseline_rows());
  options.is_cancelled = [&] { return base2.evaluated.size() == 2; };
  auto cancelled = probe_quality(base2, {}, make_corpus("t", letters(40)), policy(16, 8, true), options);
  expect_error(cancelled, ErrorCode::cancelled, "before window 3/5");
}

}  // namespace
}  // namespace ecocompute::quality
