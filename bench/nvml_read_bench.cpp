// Cost of one NVML read through NvmlLibrary: the fake (ECOCOMPUTE_NVML_LIBRARY=<build>/tests/fakes/
// fake_nvml/libfake_nvml.so) measures our wrapper's overhead; the real library measures the driver.
// Run: ECOCOMPUTE_NVML_LIBRARY=... build/bench/nvml_read_bench   (results in bench/RESULTS.md)
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>

#include "meter/gpu_selection.hpp"
#include "meter/nvml_library.hpp"

namespace {
using namespace ecocompute::meter;

struct Target {
  std::shared_ptr<NvmlLibrary> nvml;
  nvml::Device device = nullptr;
};

// The GPU is named by $ECOCOMPUTE_BENCH_GPU (UUID or PCI bus id); without it, the first NVML device,
// which is fine for timing reads (no energy is attributed here).
const Target& target() {
  static const Target t = [] {
    Target out;
    auto nvml = NvmlLibrary::open();
    if (!nvml) return out;
    out.nvml = *nvml;
    const char* named = std::getenv("ECOCOMPUTE_BENCH_GPU");
    if (named != nullptr) {
      if (auto spec = parse_gpu_spec(named)) {
        if (auto gpu = select_gpu(*out.nvml, *spec)) out.device = gpu->handle;
      }
    } else if (auto handle = out.nvml->handle_by_index(0)) {
      out.device = *handle;
    }
    return out;
  }();
  return t;
}

template <typename Read>
void run(benchmark::State& state, Read read) {
  const Target& t = target();
  if (!t.nvml || t.device == nullptr) {
    state.SkipWithError("no NVML library or device (set ECOCOMPUTE_NVML_LIBRARY)");
    return;
  }
  for (auto _ : state) benchmark::DoNotOptimize(read(t));
}

void BM_TotalEnergy(benchmark::State& state) {
  run(state, [](const Target& t) { return t.nvml->total_energy_mj(t.device).has_value(); });
}
void BM_PowerUsage(benchmark::State& state) {
  run(state, [](const Target& t) { return t.nvml->power_usage_mw(t.device).has_value(); });
}
void BM_FieldInstantPower(benchmark::State& state) {
  run(state, [](const Target& t) { return t.nvml->field_value(t.device, nvml::field_power_instant).has_value(); });
}
void BM_PowerSamplesDrain(benchmark::State& state) {
  run(state, [](const Target& t) { return t.nvml->power_samples(t.device, 0).has_value(); });
}

BENCHMARK(BM_TotalEnergy)->UseRealTime();
BENCHMARK(BM_PowerUsage)->UseRealTime();
BENCHMARK(BM_FieldInstantPower)->UseRealTime();
BENCHMARK(BM_PowerSamplesDrain)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
