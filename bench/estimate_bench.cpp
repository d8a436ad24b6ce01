// Speed of the decision layer: fitting the decision model to the shipped evidence (what happens once
// per change of the evidence), restoring a stored fit (what a question does instead), and one
// predict, one estimate and one optimize over the default grid (the per-request cost of the REST and
// MCP servers, which answer from evidence loaded once). data_dir(): $ECOCOMPUTE_DATA_DIR or the tree.
#include <benchmark/benchmark.h>

#include "data/dataset_store.hpp"
#include "decide/estimate.hpp"
#include "decide/evidence.hpp"
#include "decide/optimizer.hpp"
#include "util/precision.hpp"

namespace ecocompute::decide {
namespace {

const Evidence& shipped() {
  static const Evidence e = [] {
    auto store = data::open_published_store();
    auto rows = store->rows(data::RowQuery{});
    auto sessions = store->sessions();
    return evidence_from(std::move(*rows), std::move(*sessions));
  }();
  return e;
}

void BM_FitModel(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(DecisionModel::fit(shipped().rows));
}
BENCHMARK(BM_FitModel)->Unit(benchmark::kMillisecond);

void BM_RestoreStoredFit(benchmark::State& state) {
  const std::string text = Json(*shipped().model).dump();
  for (auto _ : state) benchmark::DoNotOptimize(DecisionModel::from_json(Json::parse(text)));
}
BENCHMARK(BM_RestoreStoredFit)->Unit(benchmark::kMillisecond);

void BM_Predict(benchmark::State& state) {
  Query q;
  q.params_b = 7.0;
  q.arch = "hopper";
  q.engine = "llama.cpp";
  q.precision = *parse_precision("Q4_K_M");
  q.batch = static_cast<int>(state.range(0));
  const Evidence& evidence = shipped();  // the fit happens here, outside the timed loop
  for (auto _ : state) benchmark::DoNotOptimize(predict(evidence, q));
}
BENCHMARK(BM_Predict)->Arg(1)->Arg(16)->ArgNames({"batch"});

void BM_Estimate(benchmark::State& state) {
  EstimateRequest request;
  request.params_b = 7.0;
  request.arch = "ada";
  const Evidence& evidence = shipped();
  for (auto _ : state) benchmark::DoNotOptimize(estimate(request, evidence));
}
BENCHMARK(BM_Estimate);

void BM_Optimize(benchmark::State& state) {
  OptimizeRequest request;
  request.params_b = 7.0;
  request.gpu = "H200";
  request.max_delta_ppl_pct = 15;
  const Evidence& evidence = shipped();
  for (auto _ : state) benchmark::DoNotOptimize(optimize(request, evidence));
}
BENCHMARK(BM_Optimize);

}  // namespace
}  // namespace ecocompute::decide

BENCHMARK_MAIN();
