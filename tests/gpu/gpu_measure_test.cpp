// `ecocompute measure` end to end on a real GPU: the trained fixture, F16 vs Q8_0, the GPU's counter
// required. The reports must be measured (basis, source, engine on CUDA, the GPU named by UUID) and
// internally consistent; the quality block is there because the fixture's weights are trained.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "gpu_support.hpp"
#include "report/energy_report.hpp"
#include "report/energy_schema.hpp"

namespace ecocompute {
namespace {
namespace fs = std::filesystem;

TEST(GpuMeasure, FixtureRunIsMeasuredOnTheGpuCounter) {
  ASSERT_NO_FATAL_FAILURE(gpu_testing::require_gpu());
  const fs::path dir = fs::temp_directory_path() / ("ecocompute_gpu_measure_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string command =
      "ECOCOMPUTE_DATA_DIR='" + gpu_testing::data_dir().string() + "' '" + gpu_testing::binary() + "' measure -m '" +
      (gpu_testing::data_dir() / "fixture/fixture-kjv-f16.gguf").string() +
      "' -p Q8_0 -k 2 --warmups 1 --min-window 3 --min-prefill-window 1 --idle-window 2 --require-energy"
      " --allow-shared --no-progress --quality-max-tokens 2000 --cache-dir '" + (dir / "cache").string() +
      "' --out '" + (dir / "out").string() + "' > '" + (dir / "stdout").string() + "' 2> '" +
      (dir / "stderr").string() + "'";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0) << "see " << (dir / "stderr");

  for (const char* name : {"energy-F16.json", "energy-Q8_0.json"}) {
    const auto problems = report::validate_energy_file(dir / "out" / name);
    ASSERT_TRUE(problems.has_value()) << name;
    EXPECT_TRUE(problems->empty()) << name << ": " << report::describe(*problems);
  }
  auto q8 = report::read_energy_report(dir / "out" / "energy-Q8_0.json");
  ASSERT_TRUE(q8.has_value()) << q8.error().describe();
  EXPECT_EQ(q8->results.basis, report::ResultBasis::measured);
  EXPECT_EQ(q8->measurement_source, "direct-nvml");
  EXPECT_EQ(q8->engine->backend, "CUDA");
  EXPECT_GT(q8->engine->n_gpu_layers, 0);
  ASSERT_TRUE(q8->environment->gpu_uuid.has_value());
  EXPECT_EQ(q8->environment->gpu_uuid->rfind("GPU-", 0), 0u);
  EXPECT_EQ(q8->statistics->n_trials, 2);
  ASSERT_TRUE(q8->statistics->vs_fp16_energy_pct.ci95_low.has_value());
  // Energy per token × tokens is the total, and power × duration is the energy.
  const report::PhaseSummary& decode = *q8->results.decode;
  ASSERT_TRUE(decode.energy_j.has_value());
  EXPECT_NEAR(*q8->results.avg_power_watts * decode.duration_s, *decode.energy_j, 1e-6 * *decode.energy_j);
  EXPECT_GT(*q8->results.idle_power_watts, 20.0);
  ASSERT_TRUE(q8->quality.has_value());
  EXPECT_GT(*q8->quality->value, 1.0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ecocompute
