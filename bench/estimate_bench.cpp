// Speed of the decision layer: one bounded curve fit (with and without leave-one-out), loading the
// published evidence (import + fits), one estimate and one optimize over the default grid. The REST
// and MCP servers answer from evidence loaded once (data_dir(): $ECOCOMPUTE_DATA_DIR or the source tree), so estimate and optimize are the per-request cost.
#include <benchmark/benchmark.h>


#include "data/curve_set.hpp"
#include "data/estimator.hpp"
#include "data/optimizer.hpp"
#include "util/file_io.hpp"

namespace ecocompute::data {
namespace {


std::vector<FitPoint> ada_nf4_points() {
  auto curves = reproduce_published_curves(data_dir() / "published" / "site_measured_fit_input.csv");
  return curves ? curves->front().fit.points : std::vector<FitPoint>{};
}

void BM_FitCurve(benchmark::State& state) {
  const auto points = ada_nf4_points();
  FitOptions options;
  options.weighting = FitWeighting::unweighted;
  options.compute_loo = state.range(0) != 0;
  for (auto _ : state) benchmark::DoNotOptimize(fit_curve(points, options));
}
BENCHMARK(BM_FitCurve)->Arg(0)->Arg(1)->ArgNames({"loo"});

void BM_LoadPublishedEvidence(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(load_published_evidence());
}
BENCHMARK(BM_LoadPublishedEvidence)->Unit(benchmark::kMillisecond);

void BM_Estimate(benchmark::State& state) {
  const auto evidence = load_published_evidence();
  EstimateRequest request;
  request.params_b = 2.0;
  request.gpu = "RTX 4090";
  for (auto _ : state) benchmark::DoNotOptimize(estimate(request, *evidence));
}
BENCHMARK(BM_Estimate);

void BM_Optimize(benchmark::State& state) {
  const auto evidence = load_published_evidence();
  OptimizeRequest request;
  request.params_b = 7.0;
  request.gpu = "H200";
  request.max_delta_ppl_pct = 15;
  for (auto _ : state) benchmark::DoNotOptimize(optimize(request, *evidence));
}
BENCHMARK(BM_Optimize);

}  // namespace
}  // namespace ecocompute::data

BENCHMARK_MAIN();
