// open_meter: the shared-GPU refusal, the fallback chain, and the environment description.
#include "meter/open_meter.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "fake_nvml_fixture.hpp"
#include "meter/gpu_info.hpp"
#include "meter/rapl_meter.hpp"

namespace ecocompute::meter {
namespace {

class OpenMeterTest : public testing::FakeNvmlTest {
 protected:
  MeterOptions options() {
    MeterOptions o;
    o.gpu = testing::h200_uuid;
    o.nvml_library = FAKE_NVML_PATH;
    o.rapl_root = "/nonexistent/powercap";
    o.nvml.start_sampler = false;
    return o;
  }
  std::string script(const std::string& processes) {
    return fmt::format(R"({{"devices": [{{"name": "NVIDIA H200", "uuid": "{}", "architecture": 9,
        "vbios": "96.00.AF.00.01", "power_limit_mw": 700000, "processes": {}}}]}})",
                       testing::h200_uuid, processes);
  }
};

TEST_F(OpenMeterTest, RefusesGpuUsedByAnotherProcess) {
  load(script(R"([{"pid": 4242, "used_memory_bytes": 1048576}])"));
  auto meter = open_meter(options());
  ASSERT_FALSE(meter.has_value());
  EXPECT_EQ(meter.error().code(), ErrorCode::unavailable);
  EXPECT_NE(meter.error().message().find("pid 4242"), std::string::npos) << meter.error().message();
  EXPECT_NE(meter.error().message().find("--allow-shared"), std::string::npos);
}

TEST_F(OpenMeterTest, AllowSharedAndOwnProcessAreAccepted) {
  load(script(R"([{"pid": 4242}])"));
  {
    MeterOptions shared = options();
    shared.allow_shared = true;
    auto meter = open_meter(shared);
    ASSERT_TRUE(meter.has_value()) << meter.error().describe();
    EXPECT_EQ((*meter)->source(), "nvml-energy-counter");
    EXPECT_EQ((*meter)->device(), std::string("NVIDIA H200 ") + testing::h200_uuid);
  }

  load(script(R"([{"pid": "self"}])"));
  auto own = open_meter(options());
  ASSERT_TRUE(own.has_value()) << own.error().describe();
}

TEST_F(OpenMeterTest, SplitRunRefusesWhenAnyOfItsGpusIsUsedByAnotherProcess) {
  constexpr const char* second = "GPU-22222222-2222-2222-2222-222222222222";
  load(fmt::format(R"({{"devices": [
      {{"name": "NVIDIA H200", "uuid": "{}", "architecture": 9, "processes": []}},
      {{"name": "NVIDIA H200", "uuid": "{}", "architecture": 9, "processes": [{{"pid": 4343}}]}}]}})",
                   testing::h200_uuid, second));
  MeterOptions split = options();
  split.gpu.clear();
  split.gpus = {testing::h200_uuid, second};
  auto refused = open_meter(split);
  ASSERT_FALSE(refused.has_value());
  EXPECT_NE(refused.error().message().find("pid 4343"), std::string::npos) << refused.error().message();

  split.allow_shared = true;
  auto allowed = open_meter(split);
  ASSERT_TRUE(allowed.has_value()) << allowed.error().describe();
  EXPECT_NE((*allowed)->device().find(second), std::string::npos) << (*allowed)->device();
}

TEST_F(OpenMeterTest, CpuWorkIsNeverMeasuredOnTheGpuCounter) {
  load(script("[]"));
  MeterOptions cpu_work = options();
  cpu_work.gpu.clear();  // the default device: a fallback is allowed
  cpu_work.use_gpu = false;
  auto meter = open_meter(cpu_work);
  ASSERT_TRUE(meter.has_value()) << meter.error().describe();
  // The fake GPU is there and readable, but the work runs on the CPU: no RAPL here, so no energy at all.
  EXPECT_EQ((*meter)->source(), "none");
  EXPECT_FALSE((*meter)->measures_energy());
}

TEST_F(OpenMeterTest, DescribesTheGpu) {
  load(script("[]"));
  const EnergySources sources = describe_energy_sources(testing::h200_uuid, FAKE_NVML_PATH, "/nonexistent/powercap");
  ASSERT_TRUE(sources.gpu.has_value()) << sources.nvml_status;
  EXPECT_TRUE(sources.nvml_available);
  EXPECT_EQ(sources.nvml_status, "ok");
  EXPECT_EQ(sources.driver_version, "580.95.05");
  EXPECT_EQ(sources.cuda_driver_version, "13.0");  // 13000 → 13.0
  EXPECT_EQ(sources.gpu->arch, "hopper");
  EXPECT_EQ(sources.gpu->vbios, "96.00.AF.00.01");
  EXPECT_DOUBLE_EQ(sources.gpu->power_limit->value, 700.0);
  EXPECT_FALSE(sources.rapl_available);
}

TEST(OpenMeterFallbackTest, NoNvmlAndNoRaplGivesNullMeterWithReasons) {
  MeterOptions o;
  o.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  o.rapl_root = "/nonexistent/powercap";
  auto meter = open_meter(o);
  ASSERT_TRUE(meter.has_value());
  EXPECT_EQ((*meter)->source(), "none");
  EXPECT_FALSE((*meter)->measures_energy());
  auto m = (*meter)->end((*meter)->begin("w"));
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->status, WindowStatus::unavailable);
  EXPECT_FALSE(m->energy.has_value());
  EXPECT_NE(m->invalid_reason.find("no GPU energy source: cannot load NVML"), std::string::npos) << m->invalid_reason;
  EXPECT_NE(m->invalid_reason.find("no CPU energy source: RAPL"), std::string::npos) << m->invalid_reason;
}

TEST(OpenMeterFallbackTest, ExplicitGpuWithoutNvmlIsAnErrorNotAFallback) {
  MeterOptions o;
  o.gpu = testing::h200_uuid;
  o.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  auto meter = open_meter(o);
  ASSERT_FALSE(meter.has_value());
  EXPECT_EQ(meter.error().code(), ErrorCode::unavailable);
  EXPECT_NE(meter.error().message().find(testing::h200_uuid), std::string::npos);
}

}  // namespace
}  // namespace ecocompute::meter
