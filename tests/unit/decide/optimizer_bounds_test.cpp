// The optimizer's bounds: repeated grid values searched once, caps named in the error, a CPU budget
// that stops a grid part-way and says how far it got, and a Pareto front equal to the pairwise one.
#include <gtest/gtest.h>

#include <algorithm>

#include "decide/optimizer.hpp"
#include "support/published_evidence.hpp"

namespace ecocompute::decide {
namespace {

OptimizeRequest question() {
  OptimizeRequest r;
  r.params_b = 8;
  r.gpu = "H200";
  return r;
}

TEST(OptimizerBounds, RepeatedValuesAreSearchedOnceAndCapsAreNamed) {
  OptimizeRequest r = question();
  r.batches = std::vector<int>(300, 4);
  r.contexts = {2048, 2048};
  r.precisions = {"FP16", "fp16"};
  auto answer = optimize(r, ecocompute::testing::published_evidence());
  ASSERT_TRUE(answer) << answer.error().describe();
  EXPECT_EQ(answer->candidates.size(), 1u);

  r.batches.clear();
  for (int b = 1; b <= 33; ++b) r.batches.push_back(b);
  auto refused = optimize(r, ecocompute::testing::published_evidence());
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("batches has 33 distinct values; at most 32"), std::string::npos)
      << refused.error().message();
}

TEST(OptimizerBounds, ACpuBudgetStopsTheGridAndSaysHowFarItGot) {
  OptimizeRequest r = question();
  const CpuBudget spent(std::chrono::milliseconds(0));
  // Spend a little processor time so that the budget of 0 ms is over before the first configuration.
  volatile double sink = 0;
  for (int i = 0; i < 2'000'000 && !spent.exhausted(); ++i) sink = sink + i;
  auto answer = optimize(r, ecocompute::testing::published_evidence(), &spent);
  ASSERT_FALSE(answer);
  EXPECT_NE(answer.error().message().find("CPU budget of 0 ms after 0 of 90 configurations"), std::string::npos)
      << answer.error().message();
  const CpuBudget ample(std::chrono::milliseconds(60'000));
  EXPECT_TRUE(optimize(r, ecocompute::testing::published_evidence(), &ample));
}

TEST(OptimizerBounds, TheParetoFrontIsExactlyTheUndominatedCandidates) {
  OptimizeRequest r = question();
  r.precisions = {"FP16", "Q8_0", "Q4_K_M", "Q4_0"};
  auto answer = optimize(r, ecocompute::testing::published_evidence());
  ASSERT_TRUE(answer) << answer.error().describe();
  std::size_t undominated = 0;
  for (const Candidate& c : answer->candidates) {
    if (!c.relative_energy) continue;
    const bool dominated = std::any_of(answer->candidates.begin(), answer->candidates.end(), [&](const Candidate& o) {
      return o.relative_energy && *o.relative_energy <= *c.relative_energy && o.latency_ms_per_token <= c.latency_ms_per_token &&
             (*o.relative_energy < *c.relative_energy || o.latency_ms_per_token < c.latency_ms_per_token);
    });
    if (!dominated) ++undominated;
  }
  EXPECT_EQ(answer->pareto_energy_latency.size(), undominated);
  EXPECT_GT(undominated, 0u);
  EXPECT_TRUE(std::is_sorted(answer->pareto_energy_latency.begin(), answer->pareto_energy_latency.end(),
                             [](const Candidate& a, const Candidate& b) { return *a.relative_energy < *b.relative_energy; }));
}

}  // namespace
}  // namespace ecocompute::decide
