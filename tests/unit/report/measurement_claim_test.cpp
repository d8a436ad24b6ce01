// Tests of the measurement rule that check, /v1/check, uploads and the dataset import share: only a
// report whose energy a counter read, and that nothing marks as hand-written, is a measurement; only
// one read by a GPU's own counter is a GPU measurement.
#include "report/measurement_claim.hpp"

#include <gtest/gtest.h>

#include "golden_reports.hpp"

namespace ecocompute::report {
namespace {

using testing::golden_reports;
using testing::published_1_1_report;
using testing::published_illustrative_report;

std::string why_not(const EnergyReport& r) { return why_not_measured(r).value_or(""); }
std::string why_not_gpu(const EnergyReport& r) { return why_not_gpu_measured(r).value_or(""); }

TEST(MeasurementClaim, OurGpuReportsAndThePublishedOneAreMeasurements) {
  EXPECT_EQ(why_not_gpu(published_1_1_report()), "");
  for (const EnergyReport& r : golden_reports(true)) EXPECT_EQ(why_not_gpu(r), "") << r.workload.precision;
}

TEST(MeasurementClaim, ThePublishedIllustrativeExampleIsNot) {
  // measurement_source "ILLUSTRATIVE (synthetic) — …", results.note "ILLUSTRATIVE synthetic values …".
  EnergyReport r = published_illustrative_report();
  ASSERT_EQ(r.results.basis, ResultBasis::measured);
  EXPECT_NE(why_not(r).find("not a real measurement: measurement_source says \"ILLUSTRATIVE (synthetic)"),
            std::string::npos)
      << why_not(r);
  // Without its measurement_source (an earlier shape of the example), its note still says so.
  r.measurement_source.reset();
  EXPECT_NE(why_not(r).find("results.note says \"ILLUSTRATIVE synthetic values"), std::string::npos) << why_not(r);
  // And with neither, the absent source is the reason.
  r.results.note.reset();
  r.quality.reset();
  EXPECT_NE(why_not(r).find("measurement_source is absent"), std::string::npos) << why_not(r);
}

TEST(MeasurementClaim, SyntheticWeightsAreMeasuredForReal) {
  // Random weights with real shapes: the energy is a measurement; only quality would be meaningless.
  EnergyReport r = golden_reports(true).at(1);
  r.workload.weights = WeightsKind::synthetic;
  r.workload.model_name = "llama-3-8b-synthetic";
  EXPECT_EQ(why_not_gpu(r), "");
}

TEST(MeasurementClaim, EstimatesAndRunsWithoutACounterAreNot) {
  EnergyReport r = published_1_1_report();
  r.results.basis = ResultBasis::interpolated;
  EXPECT_NE(why_not(r).find("results.basis is \"interpolated\""), std::string::npos) << why_not(r);
  r = published_1_1_report();
  r.measurement_source = "none";
  EXPECT_NE(why_not(r).find("measurement_source is \"none\""), std::string::npos) << why_not(r);
  r.measurement_source = "ecocompute-dataset (no local GPU)";
  EXPECT_NE(why_not(r).find("is not an energy counter"), std::string::npos) << why_not(r);
  r.measurement_source = "direct-nvml (pynvml)";  // the published checker accepts the prefix
  EXPECT_EQ(why_not_gpu(r), "");
}

TEST(MeasurementClaim, ACpuRunIsNotAGpuMeasurement) {
  // Our CPU reports: gpu_arch "none", no energy counter, basis unavailable.
  const EnergyReport cpu = golden_reports(false).at(1);
  EXPECT_NE(why_not_gpu(cpu).find("a CPU run (system_under_test.gpu_arch \"none\")"), std::string::npos)
      << why_not_gpu(cpu);
  EXPECT_NE(why_not_gpu(cpu).find("results.basis is \"unavailable\""), std::string::npos) << why_not_gpu(cpu);
  // A CPU package counter measures energy, but not a GPU's.
  EnergyReport rapl = published_1_1_report();
  rapl.measurement_source = "rapl";
  EXPECT_EQ(why_not(rapl), "");
  EXPECT_NE(why_not_gpu(rapl).find("read the CPU package, not the GPU"), std::string::npos) << why_not_gpu(rapl);
  EXPECT_TRUE(reads_energy("rapl"));
  EXPECT_TRUE(reads_energy("direct-nvml"));
  EXPECT_FALSE(reads_energy("none"));
  EXPECT_FALSE(reads_energy("nvml"));
}

}  // namespace
}  // namespace ecocompute::report
