// GPU selection by UUID and PCI bus id through the fake NVML; parsing of --gpu values.
#include "meter/gpu_selection.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include "fake_nvml_fixture.hpp"

namespace ecocompute::meter {
namespace {

constexpr const char* two_gpus = R"({"devices": [
  {"name": "GPU A", "uuid": "GPU-aaaaaaaa-0000-0000-0000-000000000001", "pci_bus_id": "00000000:19:00.0"},
  {"name": "GPU B", "uuid": "GPU-bbbbbbbb-0000-0000-0000-000000000002", "pci_bus_id": "00000000:3B:00.0"}]})";

class GpuSelectionTest : public testing::FakeNvmlTest {};

TEST_F(GpuSelectionTest, SelectsByUuidNotIndex) {
  load(two_gpus);
  auto spec = parse_gpu_spec("GPU-BBBBBBBB-0000-0000-0000-000000000002");
  ASSERT_TRUE(spec.has_value());
  auto gpu = select_gpu(*nvml_, *spec);
  ASSERT_TRUE(gpu.has_value()) << gpu.error().describe();
  EXPECT_EQ(gpu->name, "GPU B");
  EXPECT_EQ(gpu->uuid, "GPU-bbbbbbbb-0000-0000-0000-000000000002");
  EXPECT_EQ(gpu->pci_bus_id, "0000:3b:00.0");
  EXPECT_EQ(gpu->selected_by, "uuid");
}

TEST_F(GpuSelectionTest, SelectsByPciBusIdInShortOrLongForm) {
  load(two_gpus);
  for (const char* text : {"3b:00.0", "0000:3B:00.0", "00000000:3b:00.0"}) {
    auto spec = parse_gpu_spec(text);
    ASSERT_TRUE(spec.has_value()) << text;
    EXPECT_EQ(spec->pci_bus_id, "0000:3b:00.0");
    auto gpu = select_gpu(*nvml_, *spec);
    ASSERT_TRUE(gpu.has_value()) << text << ": " << gpu.error().describe();
    EXPECT_EQ(gpu->name, "GPU B");
    EXPECT_EQ(gpu->selected_by, "pci-bus-id");
  }
}

TEST_F(GpuSelectionTest, UnknownUuidIsNotFoundAndNamesNvmlFunction) {
  load(two_gpus);
  auto gpu = select_gpu(*nvml_, *parse_gpu_spec("GPU-cccccccc-0000-0000-0000-000000000003"));
  ASSERT_FALSE(gpu.has_value());
  EXPECT_EQ(gpu.error().code(), ErrorCode::not_found);
  EXPECT_NE(gpu.error().describe().find("nvmlDeviceGetHandleByUUID failed: NVML_ERROR_NOT_FOUND"), std::string::npos);
}

TEST_F(GpuSelectionTest, CudaOrdinalWithoutCudaDriverIsUnavailable) {
  if (void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD); cuda != nullptr || dlopen("libcuda.so.1", RTLD_LAZY)) {
    GTEST_SKIP() << "a CUDA driver is installed; this test is for machines without one";
  }
  load(two_gpus);
  auto gpu = select_gpu(*nvml_, *parse_gpu_spec("cuda:0"));
  ASSERT_FALSE(gpu.has_value());
  EXPECT_EQ(gpu.error().code(), ErrorCode::unavailable);
  EXPECT_NE(gpu.error().describe().find("no CUDA driver: cannot load libcuda.so.1"), std::string::npos)
      << gpu.error().describe();
}

TEST(GpuSpecTest, ParsesEachForm) {
  EXPECT_EQ(parse_gpu_spec("")->kind, GpuSpec::Kind::default_cuda);
  EXPECT_EQ(parse_gpu_spec("cuda:3")->cuda_ordinal, 3);
  EXPECT_EQ(parse_gpu_spec("GPU-AAAAAAAA-0000-0000-0000-000000000001")->uuid, "GPU-aaaaaaaa-0000-0000-0000-000000000001");
  EXPECT_EQ(parse_gpu_spec("19:00.0")->kind, GpuSpec::Kind::pci_bus_id);
}

TEST(GpuSpecTest, RejectsMalformedValuesNamingThem) {
  for (const char* bad : {"0", "cuda:", "cuda:-1", "cuda:x", "GPU-123", "zz:00.0", "index0"}) {
    auto spec = parse_gpu_spec(bad);
    ASSERT_FALSE(spec.has_value()) << bad;
    EXPECT_EQ(spec.error().code(), ErrorCode::invalid_argument);
    EXPECT_NE(spec.error().message().find(std::string("'") + bad + "'"), std::string::npos) << spec.error().message();
  }
}

TEST(NvmlLibraryTest, MissingLibraryIsNoGpuEnergySource) {
  auto nvml = NvmlLibrary::open("/nonexistent/libnvidia-ml.so.1");
  ASSERT_FALSE(nvml.has_value());
  EXPECT_EQ(nvml.error().code(), ErrorCode::unavailable);
  EXPECT_EQ(nvml.error().message().rfind("no GPU energy source: cannot load NVML (/nonexistent/libnvidia-ml.so.1)", 0), 0u)
      << nvml.error().message();
}

TEST(NvmlLibraryTest, ArchitectureClassesAndThrottleNames) {
  EXPECT_EQ(architecture_class(6), "turing");
  EXPECT_EQ(architecture_class(7), "ampere");
  EXPECT_EQ(architecture_class(8), "ada");
  EXPECT_EQ(architecture_class(9), "hopper");
  EXPECT_EQ(architecture_class(10), "blackwell");
  EXPECT_EQ(architecture_class(42), "nvml-arch-42");
  // 0x1 (idle) is not throttling; 0x4 | 0x40 = software power cap and hardware thermal slowdown.
  EXPECT_EQ(throttle_reason_names(0x1 | 0x4 | 0x40), (std::vector<std::string>{"sw_power_cap", "hw_thermal_slowdown"}));
}

}  // namespace
}  // namespace ecocompute::meter
