// The meter on a real GPU: NVML opens on the GPU llama.cpp uses, and a window around real decode work
// has a valid counter energy whose power, update period, sample rate and trace agreement are those
// of the hardware (DESIGN.md §2: ~100-ms counter, ~20-ms samples, trace within ~0.4 % at steady load).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>

#include "engine/llama_engine.hpp"
#include "gpu_support.hpp"
#include "meter/gpu_info.hpp"
#include "meter/open_meter.hpp"
#include "support/tiny_gguf.hpp"

namespace ecocompute::meter {
namespace {

TEST(GpuMeter, WindowAroundDecodeWorkReadsTheCounter) {
  ASSERT_NO_FATAL_FAILURE(gpu_testing::require_gpu());
  MeterOptions options;
  options.allow_fallback = false;  // a GPU machine must give the NVML counter, nothing else
  options.allow_shared = true;     // other tenants may hold a context; the counter is still ours to read
  auto meter = open_meter(options);
  ASSERT_TRUE(meter) << meter.error().describe();
  ASSERT_EQ((*meter)->source(), "nvml-energy-counter");
  const EnergySources sources = describe_energy_sources("");
  ASSERT_TRUE(sources.gpu.has_value()) << sources.nvml_status;
  EXPECT_NE((*meter)->device().find(sources.gpu->uuid), std::string::npos) << (*meter)->device();

  engine::testing::TempDir dir;
  const auto model = dir / "tiny.gguf";
  engine::testing::write_tiny_llama(model, {.weight_type = GGML_TYPE_F16});
  engine::LoadOptions load;
  load.model = model;
  load.n_ctx = 512;
  load.device_uuids = {sources.gpu->uuid};
  auto engine = engine::LlamaEngine::open(load);
  ASSERT_TRUE(engine) << engine.error().describe();
  std::vector<engine::Token> prompt(32, 600);

  // Three seconds of decode iterations, synchronized at both edges as the runner does.
  (*engine)->synchronize();
  Window window = (*meter)->begin("gpu test decode");
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  std::int64_t tokens = 0;
  while (std::chrono::steady_clock::now() < until) {
    ASSERT_TRUE((*engine)->reset());
    ASSERT_TRUE((*engine)->prefill(prompt));
    auto decoded = (*engine)->decode(128);
    ASSERT_TRUE(decoded) << decoded.error().describe();
    tokens += decoded->tokens;
  }
  (*engine)->synchronize();
  auto m = (*meter)->end(std::move(window));
  ASSERT_TRUE(m) << m.error().describe();

  ASSERT_TRUE(m->is_valid()) << m->invalid_reason;
  EXPECT_GE(m->duration.value, 3.0);
  ASSERT_TRUE(m->energy.has_value());
  const double watts = m->energy->value / m->duration.value;
  EXPECT_GT(watts, 20.0) << "a GPU with a context draws more than this";
  EXPECT_LT(watts, 1500.0);
  ASSERT_TRUE(m->counter_update_period.has_value());
  EXPECT_GT(m->counter_update_period->value, 0.005);
  EXPECT_LT(m->counter_update_period->value, 1.0);
  EXPECT_GT(m->achieved_sample_rate_hz, 10.0);
  ASSERT_TRUE(m->trace_vs_counter_pct.has_value());
  // A tiny model's decode is bursty and its window short: the trace still lies within 10 % of the counter.
  EXPECT_LT(std::fabs(*m->trace_vs_counter_pct), 10.0);
  ASSERT_TRUE(m->edge_uncertainty.has_value());
  EXPECT_LT(m->edge_uncertainty->value / m->energy->value, 0.25);
  EXPECT_GT(tokens, 0);
  RecordProperty("watts", std::to_string(watts));
  RecordProperty("tokens_per_s", std::to_string(static_cast<double>(tokens) / m->duration.value));
}

}  // namespace
}  // namespace ecocompute::meter
