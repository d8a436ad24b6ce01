// Speed of the protocol's statistics and scheduling: summaries, paired ΔE over many trials, the
// seeded shuffle. They run once per report, so this only confirms they are negligible next to a run.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "protocol/schedule.hpp"
#include "protocol/statistics.hpp"

namespace ecocompute::protocol {
namespace {

std::vector<double> values(std::size_t n) {
  std::mt19937_64 rng(42);
  std::normal_distribution<double> energy(1000.0, 20.0);
  std::vector<double> v(n);
  for (double& x : v) x = energy(rng);
  return v;
}

void BM_Summarize(benchmark::State& state) {
  const std::vector<double> v = values(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(summarize(v));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_Summarize)->Arg(3)->Arg(30)->Arg(3000);

void BM_StudentTCritical(benchmark::State& state) {
  std::size_t df = 1;
  for (auto _ : state) {
    benchmark::DoNotOptimize(student_t_critical(0.95, df));
    df = df % 100 + 1;
  }
}
BENCHMARK(BM_StudentTCritical);

// A run of `blocks` blocks of one baseline and four candidates, decode windows only.
void BM_ComparePaired(benchmark::State& state) {
  const int blocks = static_cast<int>(state.range(0));
  std::vector<Condition> conditions{{0, "F16", true, 0}, {1, "Q8_0", false, 0}, {2, "Q6_K", false, 0},
                                    {3, "Q4_K_M", false, 0}, {4, "Q4_0", false, 0}};
  const Schedule schedule = Schedule::make(conditions, blocks, ScheduleOrder::shuffled, 7);
  const std::vector<double> energy = values(schedule.trials.size());
  std::vector<TrialResult> trials;
  for (const ScheduledTrial& s : schedule.trials) {
    TrialResult t;
    t.index = s.index;
    t.condition = s.condition;
    t.block = s.block;
    t.status = TrialStatus::ok;
    WindowResult w;
    w.tokens = 4096;
    w.measurement.status = meter::WindowStatus::valid;
    w.measurement.duration = Seconds{22.0};
    w.energy_gross = Joules{energy[s.index] * static_cast<double>(s.condition + 1)};
    w.energy_net = *w.energy_gross - Joules{2500.0};
    t.decode = w;
    trials.push_back(std::move(t));
  }
  for (auto _ : state) benchmark::DoNotOptimize(compare_paired(conditions, trials));
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(trials.size()));
}
BENCHMARK(BM_ComparePaired)->Arg(3)->Arg(10)->Arg(100);

void BM_ScheduleShuffled(benchmark::State& state) {
  std::vector<Condition> conditions{{0, "F16", true, 0}, {1, "Q8_0", false, 0}, {2, "Q4_K_M", false, 0}};
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        Schedule::make(conditions, static_cast<int>(state.range(0)), ScheduleOrder::shuffled, 11));
  }
}
BENCHMARK(BM_ScheduleShuffled)->Arg(3)->Arg(100);

}  // namespace
}  // namespace ecocompute::protocol

BENCHMARK_MAIN();
