// The fields of a run split over several GPUs: the environment's list of GPUs and each window's
// per-GPU shares are written, read back, held to the schema, and change the fingerprint.
#include <gtest/gtest.h>

#include "golden_reports.hpp"
#include "report/energy_report.hpp"
#include "report/energy_schema.hpp"
#include "report/environment_fingerprint.hpp"

namespace ecocompute::report {
namespace {

constexpr const char* kFirst = "GPU-11111111-1111-1111-1111-111111111111";
constexpr const char* kSecond = "GPU-22222222-2222-2222-2222-222222222222";

EnergyReport split_report() {
  EnergyReport report = testing::read_golden_report("energy/energy-Q8_0.json");
  report.environment->gpus = {SplitGpu{"NVIDIA H200", kFirst, "96.00.99.00.01", 700.0},
                              SplitGpu{"NVIDIA H200", kSecond, std::nullopt, 700.0}};
  report.environment->fingerprint = environment_fingerprint(*report.environment);
  for (TrialReport& trial : *report.trials) {
    if (!trial.decode || !trial.decode->energy_j) continue;
    const double total = *trial.decode->energy_j;
    const double seconds = trial.decode->duration_s;
    trial.decode->per_gpu = {GpuWindowShare{std::string("NVIDIA H200 ") + kFirst, 0.75 * total, 0.75 * total / seconds, 0.5, "valid"},
                             GpuWindowShare{std::string("NVIDIA H200 ") + kSecond, 0.25 * total, 0.25 * total / seconds, 0.5, "valid"}};
  }
  return report;
}

TEST(SplitGpuFields, RoundTripAndValidate) {
  const EnergyReport report = split_report();
  const OrderedJson json = to_json(report);
  EXPECT_TRUE(validate_energy_json(json).empty()) << describe(validate_energy_json(json));
  auto back = energy_report_from_json(json, "split");
  ASSERT_TRUE(back.has_value()) << back.error().describe();
  EXPECT_EQ(to_json(*back).dump(), json.dump());
  ASSERT_EQ(back->environment->gpus.size(), 2u);
  EXPECT_EQ(back->environment->gpus[1].uuid, kSecond);
  EXPECT_FALSE(back->environment->gpus[1].vbios.has_value());
  const WindowReport* decode = nullptr;
  for (const TrialReport& t : *back->trials) {
    if (t.decode && !t.decode->per_gpu.empty()) decode = &*t.decode;
  }
  ASSERT_NE(decode, nullptr);
  ASSERT_EQ(decode->per_gpu.size(), 2u);
  EXPECT_DOUBLE_EQ(*decode->per_gpu[0].energy_j + *decode->per_gpu[1].energy_j, *decode->energy_j);
}

TEST(SplitGpuFields, OneGpuWritesNeither) {
  const OrderedJson json = to_json(testing::read_golden_report("energy/energy-Q8_0.json"));
  EXPECT_FALSE(json["environment"].contains("gpus"));
  EXPECT_EQ(json.dump().find("per_gpu"), std::string::npos);
}

TEST(SplitGpuFields, TheGpuListChangesTheFingerprint) {
  EnergyReport report = split_report();
  const std::string two = environment_fingerprint(*report.environment);
  report.environment->gpus[1].uuid = "GPU-33333333-3333-3333-3333-333333333333";
  EXPECT_NE(environment_fingerprint(*report.environment), two);
}

TEST(SplitGpuFields, ALoneShareOrAShareWithoutEnergyIsASchemaProblem) {
  EnergyReport report = split_report();
  for (TrialReport& trial : *report.trials) {
    if (trial.decode && !trial.decode->per_gpu.empty()) trial.decode->per_gpu.pop_back();
  }
  EXPECT_FALSE(validate_energy_json(to_json(report)).empty()) << "one GPU is not a split";
  OrderedJson json = to_json(split_report());
  for (auto& trial : json["trials"]) {
    if (trial["decode"].is_object() && trial["decode"].contains("per_gpu")) trial["decode"]["per_gpu"][0].erase("energy_j");
  }
  EXPECT_FALSE(validate_energy_json(json).empty());
}

}  // namespace
}  // namespace ecocompute::report
