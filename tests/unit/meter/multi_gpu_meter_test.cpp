// MultiGpuMeter against the fake NVML with two GPUs of different, scripted power: the window's energy
// is exactly the sum, each GPU's share is exactly its own counter, and a bad GPU invalidates the window
// naming it.
#include "meter/multi_gpu_meter.hpp"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include "fake_nvml_fixture.hpp"
#include "meter/gpu_selection.hpp"

namespace ecocompute::meter {
namespace {

using testing::FakeNvmlTest;

constexpr const char* kFirst = "GPU-11111111-1111-1111-1111-111111111111";
constexpr const char* kSecond = "GPU-22222222-2222-2222-2222-222222222222";

std::string device(const char* uuid, const char* pci, const std::string& power, const std::string& extra = "") {
  return fmt::format(R"({{"name": "NVIDIA H200", "uuid": "{}", "pci_bus_id": "{}", "counter_update_period_s": 0.1,
      "sample_period_s": 0.02, "sample_buffer": 120, "temperature_c": 40, "sm_clock_mhz": 1980,
      "memory_clock_mhz": 2619, "power_limit_mw": 700000, "clocks_event_reasons": 4, "pstate": 0,
      "power": {} {}}})",
                     uuid, pci, power, extra);
}

std::string two_gpu_devices(const std::string& first_extra = "", const std::string& second_extra = "") {
  return fmt::format(R"({{"start_time_s": 1000, "devices": [{}, {}]}})",
                     device(kFirst, "00000000:19:00.0", R"({"kind": "constant", "watts": 100})", first_extra),
                     device(kSecond, "00000000:3b:00.0", R"({"kind": "step", "before_watts": 200, "after_watts": 500, "at_s": 1005})",
                            second_extra));
}

class MultiGpuMeterTest : public FakeNvmlTest {
 protected:
  std::unique_ptr<Meter> open(const std::vector<std::string>& uuids) {
    NvmlMeterOptions options;
    options.start_sampler = false;
    auto meter = open_gpus_meter(nvml_, uuids, clock_, options);
    EXPECT_TRUE(meter.has_value()) << meter.error().describe();
    return meter ? std::move(*meter) : nullptr;
  }
  Measurement window(Meter& meter, double begin_s, double end_s) {
    at(begin_s);
    Window w = meter.begin("decode");
    at(end_s);
    auto m = meter.end(std::move(w));
    EXPECT_TRUE(m.has_value()) << m.error().describe();
    return m.value_or(Measurement{});
  }
};

TEST_F(MultiGpuMeterTest, EnergyIsTheExactSumAndEachGpuKeepsItsOwnShare) {
  load(two_gpu_devices());
  auto meter = open({kFirst, kSecond});
  ASSERT_NE(meter, nullptr);
  EXPECT_EQ(meter->device(), fmt::format("2 GPUs: NVIDIA H200 {}; NVIDIA H200 {}", kFirst, kSecond));
  const Measurement m = window(*meter, 1000.5, 1010.5);
  ASSERT_EQ(m.status, WindowStatus::valid) << m.invalid_reason;
  ASSERT_EQ(m.per_device.size(), 2u);
  // GPU 1: 100 W × 10 s. GPU 2: 200 W × 4.5 s + 500 W × 5.5 s = 900 + 2750 J.
  EXPECT_DOUBLE_EQ(m.per_device[0].energy->value, 1000.0);
  EXPECT_DOUBLE_EQ(m.per_device[1].energy->value, 3650.0);
  EXPECT_DOUBLE_EQ(m.energy->value, 4650.0);
  EXPECT_EQ(m.per_device[0].device, std::string("NVIDIA H200 ") + kFirst);
  EXPECT_EQ(m.per_device[1].device, std::string("NVIDIA H200 ") + kSecond);
  // No sampler ran, so no GPU knows its counter's update period: no edge bound, and none made up.
  EXPECT_FALSE(m.per_device[0].edge_uncertainty.has_value());
  EXPECT_FALSE(m.edge_uncertainty.has_value());
  EXPECT_NEAR(m.duration.value, 10.0, 1e-9);
  // Power limits of both GPUs together.
  ASSERT_TRUE(m.at_begin.power_limit.has_value());
  EXPECT_DOUBLE_EQ(m.at_begin.power_limit->value, 1400.0);
  EXPECT_NEAR(m.average_power()->value, 465.0, 1e-9);
}

TEST_F(MultiGpuMeterTest, OneInvalidGpuInvalidatesTheWindowNamingIt) {
  load(two_gpu_devices("", R"(, "counter_reset_at_s": 1005)"));
  auto meter = open({kFirst, kSecond});
  ASSERT_NE(meter, nullptr);
  const Measurement m = window(*meter, 1000.5, 1010.5);
  EXPECT_EQ(m.status, WindowStatus::counter_reset);
  EXPECT_FALSE(m.energy.has_value());
  EXPECT_NE(m.invalid_reason.find(kSecond), std::string::npos) << m.invalid_reason;
  ASSERT_EQ(m.per_device.size(), 2u);
  EXPECT_TRUE(m.per_device[0].is_valid());  // the other GPU's own window is still reported as read
}

TEST_F(MultiGpuMeterTest, OneGpuIsThePlainMeter) {
  load(two_gpu_devices());
  auto meter = open({kFirst});
  ASSERT_NE(meter, nullptr);
  EXPECT_EQ(meter->device(), std::string("NVIDIA H200 ") + kFirst);
  const Measurement m = window(*meter, 1000.5, 1010.5);
  EXPECT_DOUBLE_EQ(m.energy->value, 1000.0);
  EXPECT_TRUE(m.per_device.empty());
}

TEST_F(MultiGpuMeterTest, BadGpuListsAreRefusedNamingTheEntry) {
  load(two_gpu_devices());
  NvmlMeterOptions options;
  options.start_sampler = false;
  auto twice = open_gpus_meter(nvml_, {kFirst, kFirst}, clock_, options);
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message().find("listed twice"), std::string::npos);
  auto ordinal = open_gpus_meter(nvml_, {kFirst, "cuda:1"}, clock_, options);
  ASSERT_FALSE(ordinal);
  EXPECT_NE(ordinal.error().message().find("cuda:1"), std::string::npos);
  auto unknown = open_gpus_meter(nvml_, {kFirst, "GPU-99999999-9999-9999-9999-999999999999"}, clock_, options);
  ASSERT_FALSE(unknown);
  EXPECT_FALSE(open_gpus_meter(nvml_, {}, clock_, options));
}

TEST(CombineMeasurements, SumsWhatEveryGpuHasAndKeepsTheWorstTelemetry) {
  Measurement a;
  a.label = "decode";
  a.source = "nvml-energy-counter";
  a.device = "A";
  a.status = WindowStatus::valid;
  a.duration = Seconds{10.0};
  a.energy = Joules{1000.0};
  a.edge_uncertainty = Joules{20.0};
  a.trace_energy = Joules{1010.0};
  a.counter_update_period = Seconds{0.1};
  a.achieved_sample_rate_hz = 50.0;
  a.dropped_reads = 1;
  a.at_begin.temperature_c = 40.0;
  a.at_begin.sm_clock_mhz = 1980;
  a.at_begin.pstate = 0;
  a.at_begin.throttle_reasons = 4;
  Measurement b = a;
  b.device = "B";
  b.duration = Seconds{10.002};
  b.energy = Joules{3000.0};
  b.edge_uncertainty = Joules{60.0};
  b.trace_energy = Joules{2990.0};
  b.achieved_sample_rate_hz = 49.0;
  b.dropped_reads = 2;
  b.at_begin.temperature_c = 55.0;
  b.at_begin.sm_clock_mhz = 1755;
  b.at_begin.pstate = 2;
  b.at_begin.throttle_reasons = 8;
  const Measurement m = combine_measurements({a, b}, "2 GPUs: A; B");
  ASSERT_TRUE(m.is_valid());
  EXPECT_DOUBLE_EQ(m.energy->value, 4000.0);
  EXPECT_DOUBLE_EQ(m.edge_uncertainty->value, 80.0);
  EXPECT_DOUBLE_EQ(m.trace_energy->value, 4000.0);
  EXPECT_DOUBLE_EQ(*m.trace_vs_counter_pct, 0.0);
  EXPECT_DOUBLE_EQ(m.duration.value, 10.002);
  EXPECT_DOUBLE_EQ(m.achieved_sample_rate_hz, 49.0);
  EXPECT_EQ(m.dropped_reads, 3u);
  EXPECT_EQ(m.at_begin.temperature_c, 55.0);
  EXPECT_EQ(m.at_begin.sm_clock_mhz, 1755u);
  EXPECT_EQ(m.at_begin.pstate, 2);
  EXPECT_EQ(m.at_begin.throttle_reasons, 12u);
  EXPECT_EQ(m.device, "2 GPUs: A; B");
  ASSERT_EQ(m.per_device.size(), 2u);
  EXPECT_DOUBLE_EQ(m.per_device[1].energy->value, 3000.0);
  // A quantity one GPU lacks is absent from the sum, never a partial total.
  b.trace_energy.reset();
  EXPECT_FALSE(combine_measurements({a, b}, "x").trace_energy.has_value());
}

}  // namespace
}  // namespace ecocompute::meter
