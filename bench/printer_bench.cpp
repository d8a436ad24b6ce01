// Speed of the report path: building a report from a run, reading and writing its JSON, building a
// llama-bench row from it, printing rows in each format, and validating a report against the schema. All run once per report, after the measurement,
// so this only confirms they are negligible next to a run (results in bench/RESULTS.md).
#include <benchmark/benchmark.h>

#include <sstream>

#include "../tests/unit/experiment/sample_run.hpp"
#include "experiment/report_builder.hpp"
#include "report/bench_record.hpp"
#include "report/energy_report.hpp"
#include "report/energy_schema.hpp"
#include "report/printer.hpp"

namespace ecocompute::report {
namespace {

EnergyReport sample_report() {
  return *experiment::build_energy_report(experiment::testing::sample_run(), 2, experiment::testing::sample_context());
}

void BM_BuildEnergyReport(benchmark::State& state) {
  const protocol::RunResult run = experiment::testing::sample_run();
  const experiment::ReportContext context = experiment::testing::sample_context();
  for (auto _ : state) benchmark::DoNotOptimize(experiment::build_energy_report(run, 2, context));
}
BENCHMARK(BM_BuildEnergyReport);

void BM_ReportToJson(benchmark::State& state) {
  const EnergyReport report = sample_report();
  for (auto _ : state) benchmark::DoNotOptimize(to_json(report));
}
BENCHMARK(BM_ReportToJson);

void BM_ReportFromJson(benchmark::State& state) {
  const OrderedJson doc = to_json(sample_report());
  for (auto _ : state) benchmark::DoNotOptimize(energy_report_from_json(doc, "bench"));
}
BENCHMARK(BM_ReportFromJson);

void BM_ValidateEnergyJson(benchmark::State& state) {
  const OrderedJson doc = to_json(sample_report());
  for (auto _ : state) benchmark::DoNotOptimize(validate_energy_json(doc));
}
BENCHMARK(BM_ValidateEnergyJson);

void BM_BenchRecord(benchmark::State& state) {
  const EnergyReport report = sample_report();
  for (auto _ : state) benchmark::DoNotOptimize(bench_record(report));
}
BENCHMARK(BM_BenchRecord);

// Prints range(1) rows in format range(0).
void BM_Print(benchmark::State& state) {
  const auto format = static_cast<OutputFormat>(state.range(0));
  const Record record = bench_record(sample_report());
  const PrintContext context{bench_columns(), "ecocompute-energy/1.2", "bench"};
  for (auto _ : state) {
    std::ostringstream out;
    auto printer = make_printer(format, out);
    printer->begin(context);
    for (int i = 0; i < state.range(1); ++i) printer->write(record);
    printer->end();
    benchmark::DoNotOptimize(out.str());
  }
  state.SetItemsProcessed(state.iterations() * state.range(1));
  state.SetLabel(std::string(to_string(format)));
}
BENCHMARK(BM_Print)->ArgsProduct({{0, 1, 2, 3, 4}, {10}});

}  // namespace
}  // namespace ecocompute::report

BENCHMARK_MAIN();
