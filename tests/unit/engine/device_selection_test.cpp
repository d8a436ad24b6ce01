// Tests of device selection (the engine on a real GPU: tests/gpu/gpu_engine_test.cpp).
#include "engine/device_selection.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>


namespace ecocompute::engine {
namespace {
using ::testing::HasSubstr;

TEST(DeviceSelection, ParsesPciBusIdsOfCudaAndNvml) {
  const auto cuda = parse_pci_bus_id("0000:c1:00.0");
  const auto nvml = parse_pci_bus_id("00000000:C1:00.0");
  ASSERT_TRUE(cuda);
  ASSERT_TRUE(nvml);
  EXPECT_EQ(*cuda, *nvml);
  EXPECT_EQ(cuda->bus, 0xc1U);
  EXPECT_EQ(cuda->function, 0U);
  EXPECT_FALSE(parse_pci_bus_id("GPU-12345678-abcd-ef01-2345-6789abcdef01"));
  EXPECT_FALSE(parse_pci_bus_id(""));
}

TEST(DeviceSelection, NoWishMeansTheFirstGpuOrNone) {
  const auto gpus = list_gpu_devices();
  auto chosen = select_gpu("");
  ASSERT_TRUE(chosen);
  if (gpus.empty()) {
    EXPECT_FALSE(chosen->has_value());
  } else {
    ASSERT_TRUE(chosen->has_value());
    EXPECT_EQ((*chosen)->name, gpus.front().name);
  }
}

TEST(DeviceSelection, UnknownPciBusIdIsNotFoundAndListsTheGpus) {
  auto chosen = select_gpu("0000:99:00.0");
  ASSERT_FALSE(chosen);
  EXPECT_EQ(chosen.error().code(), ErrorCode::not_found);
  EXPECT_THAT(chosen.error().message(), HasSubstr("GPU 0000:99:00.0 (PCI 0000:99:00.0) is not among the llama.cpp devices"));
}

TEST(DeviceSelection, UnknownUuidIsAnError) {
  auto chosen = select_gpu("GPU-00000000-0000-0000-0000-000000000000");
  ASSERT_FALSE(chosen);
  // Without a CUDA driver: unavailable; with one: no device has this UUID.
  EXPECT_TRUE(chosen.error().code() == ErrorCode::unavailable || chosen.error().code() == ErrorCode::not_found)
      << chosen.error().describe();
  EXPECT_THAT(chosen.error().describe(), HasSubstr("GPU-00000000-0000-0000-0000-000000000000"));
}

}  // namespace
}  // namespace ecocompute::engine
