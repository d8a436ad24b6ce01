// Cost per scored token of the quality probe's host arithmetic (log-sum-exp, KL divergence) by vocabulary size.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "quality/kl_divergence.hpp"

namespace {

std::vector<float> random_logits(std::int64_t n_vocab, unsigned seed) {
  std::mt19937 generator(seed);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::vector<float> logits(static_cast<std::size_t>(n_vocab));
  for (float& z : logits) z = normal(generator);
  return logits;
}

// One position's summary: what the baseline and every candidate pay per scored token.
void BM_SummarizeLogits(benchmark::State& state) {
  const auto logits = random_logits(state.range(0), 1);
  for (auto _ : state) benchmark::DoNotOptimize(ecocompute::quality::summarize_logits(logits));
  state.SetItemsProcessed(state.iterations());
}

// One position's KL(baseline ‖ candidate): what each candidate pays per scored token on top.
void BM_KlDivergence(benchmark::State& state) {
  const auto p = random_logits(state.range(0), 1);
  const auto q = random_logits(state.range(0), 2);
  const double lse_p = ecocompute::quality::summarize_logits(p)->log_sum_exp;
  const double lse_q = ecocompute::quality::summarize_logits(q)->log_sum_exp;
  for (auto _ : state) benchmark::DoNotOptimize(ecocompute::quality::kl_divergence(p, lse_p, q, lse_q));
  state.SetItemsProcessed(state.iterations());
}

}  // namespace

// Vocabulary sizes: a small fixture tokenizer, Llama-2 (32000), Llama-3 (128256), Qwen2 (151936).
BENCHMARK(BM_SummarizeLogits)->Arg(4096)->Arg(32000)->Arg(128256)->Arg(151936);
BENCHMARK(BM_KlDivergence)->Arg(4096)->Arg(32000)->Arg(128256)->Arg(151936);
BENCHMARK_MAIN();
