// Tests of device selection, and of the engine on a GPU where llama.cpp has one (skipped otherwise).
#include "engine/device_selection.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engine/llama_engine.hpp"
#include "support/tiny_gguf.hpp"

namespace ecocompute::engine {
namespace {
using ::testing::HasSubstr;
using testing::TempDir;

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

// The rest needs a GPU backend in the linked llama.cpp (third_party/llama-cuda) and a GPU.
class GpuEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (list_gpu_devices().empty()) GTEST_SKIP() << "no GPU backend device (CPU-only llama.cpp or no GPU)";
    path_ = dir_ / "tiny.gguf";
    testing::write_tiny_llama(path_, {.weight_type = GGML_TYPE_F16});
  }
  TempDir dir_;
  std::filesystem::path path_;
};

TEST_F(GpuEngineTest, OffloadsEveryLayerByDefaultAndSaysSo) {
  LoadOptions o;
  o.model = path_;
  o.n_ctx = 256;
  auto engine = LlamaEngine::open(o);
  ASSERT_TRUE(engine) << engine.error().describe();
  const auto d = (*engine)->describe();
  const GpuDevice first = list_gpu_devices().front();
  EXPECT_EQ(d.backend, first.backend);
  EXPECT_EQ(d.device, first.name + " (" + first.description + ")");
  EXPECT_EQ(d.n_gpu_layers, 3);  // 2 repeating layers + the output layer

  std::vector<Token> prompt(24);
  for (std::size_t i = 0; i < prompt.size(); ++i) prompt[i] = static_cast<Token>(500 + i);
  ASSERT_TRUE((*engine)->prefill(prompt));
  ASSERT_TRUE((*engine)->decode(16));
  const std::vector<Token> first_run((*engine)->last_generated().begin(), (*engine)->last_generated().end());
  ASSERT_TRUE((*engine)->reset());
  ASSERT_TRUE((*engine)->prefill(prompt));
  ASSERT_TRUE((*engine)->decode(16));
  EXPECT_EQ(std::vector<Token>((*engine)->last_generated().begin(), (*engine)->last_generated().end()), first_run);
}

TEST_F(GpuEngineTest, SelectsTheGpuByItsCudaUuid) {
  auto cuda = list_cuda_devices();
  if (!cuda || cuda->empty()) GTEST_SKIP() << "no CUDA driver devices";
  const CudaDeviceId& wanted = cuda->back();
  auto chosen = select_gpu(wanted.uuid);
  ASSERT_TRUE(chosen) << chosen.error().describe();
  ASSERT_TRUE(chosen->has_value());
  EXPECT_EQ(parse_pci_bus_id((*chosen)->pci_bus_id), parse_pci_bus_id(wanted.pci_bus_id));

  LoadOptions o;
  o.model = path_;
  o.n_ctx = 256;
  o.device_uuid = wanted.uuid;
  auto engine = LlamaEngine::open(o);
  ASSERT_TRUE(engine) << engine.error().describe();
  EXPECT_EQ((*engine)->describe().device, (*chosen)->name + " (" + (*chosen)->description + ")");
}

}  // namespace
}  // namespace ecocompute::engine
