// The engine on a real GPU: every layer offloaded by default, deterministic greedy tokens, and the GPU
// chosen by its CUDA UUID is the one llama.cpp runs on.
#include <gtest/gtest.h>

#include "engine/device_selection.hpp"
#include "engine/llama_engine.hpp"
#include "gpu_support.hpp"
#include "support/tiny_gguf.hpp"

namespace ecocompute::engine {
namespace {
using testing::TempDir;

class GpuEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(gpu_testing::require_gpu());
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
  ASSERT_TRUE(cuda && !cuda->empty()) << "no CUDA driver devices";
  const CudaDeviceId& wanted = cuda->back();
  auto chosen = select_gpu(wanted.uuid);
  ASSERT_TRUE(chosen) << chosen.error().describe();
  ASSERT_TRUE(chosen->has_value());
  EXPECT_EQ(parse_pci_bus_id((*chosen)->pci_bus_id), parse_pci_bus_id(wanted.pci_bus_id));

  LoadOptions o;
  o.model = path_;
  o.n_ctx = 256;
  o.device_uuids = {wanted.uuid};
  auto engine = LlamaEngine::open(o);
  ASSERT_TRUE(engine) << engine.error().describe();
  EXPECT_EQ((*engine)->describe().device, (*chosen)->name + " (" + (*chosen)->description + ")");
}

}  // namespace
}  // namespace ecocompute::engine
