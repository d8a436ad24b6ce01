// NvmlMeter against the fake NVML: window energy, edge uncertainty, trace agreement, reset, stuck,
// failing reads, telemetry. The sampler thread is off; the test plays its part on the virtual clock.
#include "meter/nvml_meter.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "fake_nvml_fixture.hpp"

namespace ecocompute::meter {
namespace {

using testing::FakeNvmlTest;

std::string script(const std::string& power, const std::string& extra = "", const std::string& failures = "[]") {
  return fmt::format(R"({{"start_time_s": 1000, "failures": {}, "devices": [{{"name": "NVIDIA H200", "uuid": "{}",
      "pci_bus_id": "00000000:19:00.0", "counter_update_period_s": 0.1, "sample_period_s": 0.02,
      "sample_buffer": 120, "temperature_c": 40, "sm_clock_mhz": 1980, "memory_clock_mhz": 2619,
      "power_limit_mw": 700000, "clocks_event_reasons": 4, "pstate": 0, "power": {} {}}}]}})",
                     failures, testing::h200_uuid, power, extra);
}

class NvmlMeterTest : public FakeNvmlTest {
 protected:
  std::unique_ptr<NvmlMeter> make_meter(bool correct_edges = false) {
    auto gpu = select_gpu(*nvml_, GpuSpec{GpuSpec::Kind::uuid, testing::h200_uuid, "", 0});
    EXPECT_TRUE(gpu.has_value());
    NvmlMeterOptions options;
    options.start_sampler = false;
    options.correct_edges = correct_edges;
    return std::make_unique<NvmlMeter>(nvml_, *gpu, clock_, options);
  }
  // Plays the edge-correcting sampler: a counter poll every 10 ms (whole microseconds on the fake's
  // clock), a buffer drain every 500 ms.
  void poll_finely(NvmlMeter& meter, std::int64_t from_ms, std::int64_t to_ms) {
    for (std::int64_t t = from_ms; t <= to_ms; t += 10) {
      set_time_(static_cast<std::uint64_t>(t) * 1000);
      meter.poll_counter();
      if ((t - from_ms) % 500 == 0) meter.drain_trace();
    }
  }
  // A window from begin_ms to end_ms with fine polling inside it, and before it from `polled_from_ms`
  // (none when absent: the counter's value at begin was then never seen changing).
  Measurement finely_polled_window(NvmlMeter& meter, std::optional<std::int64_t> polled_from_ms,
                                   std::int64_t begin_ms, std::int64_t end_ms) {
    if (polled_from_ms) poll_finely(meter, *polled_from_ms, begin_ms);
    set_time_(static_cast<std::uint64_t>(begin_ms) * 1000);
    Window w = meter.begin("w");
    poll_finely(meter, begin_ms + 10, end_ms);
    set_time_(static_cast<std::uint64_t>(end_ms) * 1000);
    auto m = meter.end(std::move(w));
    EXPECT_TRUE(m.has_value());
    return m.value_or(Measurement{});
  }
  // Plays the sampler from `from` to `to`: counter poll every 50 ms, buffer drain every 500 ms.
  void sample(NvmlMeter& meter, double from, double to) {
    for (int i = 0; from + i * 0.05 <= to + 1e-9; ++i) {
      at(from + i * 0.05);
      meter.poll_counter();
      if (i % 10 == 0) meter.drain_trace();
    }
  }
  Measurement window(NvmlMeter& meter, double begin_s, double end_s) {
    sample(meter, 1000.0, begin_s);
    at(begin_s);
    Window w = meter.begin("w");
    sample(meter, begin_s + 0.05, end_s);
    at(end_s);
    auto m = meter.end(std::move(w));
    EXPECT_TRUE(m.has_value());
    return *m;
  }
};

TEST_F(NvmlMeterTest, ConstantPowerWindowHasExactEnergyUncertaintyAndTraceAgreement) {
  load(script(R"({"kind": "constant", "watts": 100})"));
  auto meter = make_meter();
  const Measurement m = window(*meter, 1000.5, 1010.5);
  ASSERT_EQ(m.status, WindowStatus::valid) << m.invalid_reason;
  // Counter at 1010.5 s minus at 1000.5 s: 100 W × 10 s = 1000 J.
  EXPECT_DOUBLE_EQ(m.energy->value, 1000.0);
  EXPECT_NEAR(m.duration.value, 10.0, 1e-9);
  // Counter changes every 0.1 s; polls every 0.05 s see each change exactly: period 0.1 s.
  ASSERT_TRUE(m.counter_update_period.has_value());
  EXPECT_NEAR(m.counter_update_period->value, 0.1, 1e-9);
  // ± P × period per edge, two edges: (100 W + 100 W) × 0.1 s = 20 J.
  EXPECT_NEAR(m.edge_uncertainty->value, 20.0, 1e-9);
  // Samples every 20 ms from 1000.50 to 1010.50 inclusive: 501 samples; trapezoid of 100 W × 10 s.
  EXPECT_EQ(m.trace.size(), 501u);
  EXPECT_NEAR(m.trace_energy->value, 1000.0, 1e-9);
  EXPECT_NEAR(*m.trace_vs_counter_pct, 0.0, 1e-9);
  EXPECT_NEAR(m.achieved_sample_rate_hz, 50.1, 1e-9);  // 501 / 10 s
  EXPECT_EQ(m.dropped_reads, 0u);
  EXPECT_NEAR(m.average_power()->value, 100.0, 1e-9);
}

TEST_F(NvmlMeterTest, BusyShareIsTheMeanOfTheUtilizationSamplesInsideTheWindow) {
  // Busy 96 % until 1004.01 s, 40 % after; samples every 20 ms.
  load(script(R"({"kind": "constant", "watts": 100})", R"(, "busy_pct": 96, "busy_after_pct": 40, "busy_step_at_s": 1004.01)"));
  auto meter = make_meter();
  const Measurement m = window(*meter, 1000.5, 1010.5);
  ASSERT_TRUE(m.gpu_busy_pct.has_value());
  EXPECT_EQ(m.gpu_busy_samples, 501u);
  // 1000.50 … 1004.00: 176 samples at 96; 1004.02 … 1010.50: 325 at 40.
  EXPECT_NEAR(*m.gpu_busy_pct, (176.0 * 96.0 + 325.0 * 40.0) / 501.0, 1e-9);
}

TEST_F(NvmlMeterTest, NoUtilizationSamplesLeavesTheBusyShareAbsent) {
  load(script(R"({"kind": "constant", "watts": 100})"));
  auto meter = make_meter();
  const Measurement m = window(*meter, 1000.5, 1010.5);
  ASSERT_EQ(m.status, WindowStatus::valid) << m.invalid_reason;
  EXPECT_FALSE(m.gpu_busy_pct.has_value());
  EXPECT_EQ(m.gpu_busy_samples, 0u);
}

TEST_F(NvmlMeterTest, StepBetweenSamplesShowsInTraceDisagreement) {
  load(script(R"({"kind": "step", "before_watts": 100, "after_watts": 300, "at_s": 1005.005})"));
  auto meter = make_meter();
  const Measurement m = window(*meter, 1000.5, 1010.5);
  ASSERT_EQ(m.status, WindowStatus::valid) << m.invalid_reason;
  // Counter: 100 W × 4.505 s + 300 W × 5.495 s = 450.5 + 1648.5 = 2099 J.
  EXPECT_NEAR(m.energy->value, 2099.0, 1e-9);
  // Trace: the step lies between samples at 1005.00 (100 W) and 1005.02 (300 W); the trapezoid there
  // is (100+300)/2 × 0.02 = 4 J where the truth is 100 × 0.005 + 300 × 0.015 = 5 J: 2098 J.
  EXPECT_NEAR(m.trace_energy->value, 2098.0, 1e-6);
  // (2098 − 2099) / 2099 × 100 = −0.0476417…
  EXPECT_NEAR(*m.trace_vs_counter_pct, -100.0 / 2099.0, 1e-9);
  // Edge uncertainty: (100 W at begin + 300 W at end) × 0.1 s = 40 J.
  EXPECT_NEAR(m.edge_uncertainty->value, 40.0, 1e-9);
}

TEST_F(NvmlMeterTest, PulseTrainOverWholePeriodsMatchesDutyCycle) {
  load(script(R"({"kind": "pulse", "low_watts": 100, "high_watts": 500, "period_s": 1, "duty": 0.25, "phase_s": 0})"));
  auto meter = make_meter();
  const Measurement m = window(*meter, 1000.5, 1010.5);
  ASSERT_EQ(m.status, WindowStatus::valid);
  // Ten whole periods of 0.25 s × 500 W + 0.75 s × 100 W = 200 J each: 2000 J.
  EXPECT_NEAR(m.energy->value, 2000.0, 1e-9);
}

TEST_F(NvmlMeterTest, CounterGoingBackwardsIsAResetWithReason) {
  load(script(R"({"kind": "constant", "watts": 100})", R"(, "counter_reset_at_s": 1005.0)"));
  auto meter = make_meter();
  const Measurement m = window(*meter, 1000.5, 1010.5);
  EXPECT_EQ(m.status, WindowStatus::counter_reset);
  EXPECT_FALSE(m.energy.has_value());
  // Before: 100 W × 1000.5 s = 100050 J; after the reset at 1005 s: 100 W × 5.5 s = 550 J.
  EXPECT_NE(m.invalid_reason.find("from 100050000 mJ to 550000 mJ"), std::string::npos) << m.invalid_reason;
}

TEST_F(NvmlMeterTest, CounterThatStopsForMoreThanThreeUpdatePeriodsIsStuck) {
  load(script(R"({"kind": "constant", "watts": 100})", R"(, "counter_stuck_from_s": 1001.0)"));
  auto meter = make_meter();
  // Polls from 1000.0 to 1001.0 see the 0.1-s period; the window 1002.0–1002.5 (0.5 s > 3 × 0.1 s)
  // sees no change at 100 W.
  const Measurement m = window(*meter, 1002.0, 1002.5);
  EXPECT_EQ(m.status, WindowStatus::counter_stuck);
  EXPECT_FALSE(m.energy.has_value());
  EXPECT_NE(m.invalid_reason.find("stayed at 100100000 mJ"), std::string::npos) << m.invalid_reason;
}

TEST_F(NvmlMeterTest, StuckFromTheStartIsCaughtOnceTheWindowExceedsThreeSeconds) {
  load(script(R"({"kind": "constant", "watts": 100})", R"(, "counter_stuck_from_s": 999.0)"));
  auto meter = make_meter();
  // No change ever seen, so no period: the bound is 3 × 1 s; a 10-s window is stuck.
  const Measurement m = window(*meter, 1000.5, 1010.5);
  EXPECT_EQ(m.status, WindowStatus::counter_stuck);
  EXPECT_FALSE(m.counter_update_period.has_value());
}

TEST_F(NvmlMeterTest, FailedCounterReadAtEndMarksWindowReadFailed) {
  load(script(R"({"kind": "constant", "watts": 100})", "",
              R"([{"function": "nvmlDeviceGetTotalEnergyConsumption", "call": 2, "code": 15}])"));
  auto meter = make_meter();
  at(1000.5);
  Window w = meter->begin("w");  // call 1
  at(1001.5);
  auto m = meter->end(std::move(w));  // call 2 fails
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->status, WindowStatus::read_failed);
  EXPECT_NE(m->invalid_reason.find("nvmlDeviceGetTotalEnergyConsumption failed: NVML_ERROR_GPU_IS_LOST (15)"),
            std::string::npos)
      << m->invalid_reason;
}

TEST_F(NvmlMeterTest, FailedSampleReadIsCountedAsDropped) {
  load(script(R"({"kind": "constant", "watts": 100})", "",
              R"([{"function": "nvmlDeviceGetSamples", "call": 3, "code": 15}])"));
  auto meter = make_meter();
  at(1000.5);
  Window w = meter->begin("w");
  meter->drain_trace();  // calls 1–2 (count, fill)
  at(1001.0);
  meter->drain_trace();  // call 3 fails: one dropped read
  at(1001.5);
  auto m = meter->end(std::move(w));  // its drain: calls 4–5
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->dropped_reads, 1u);
  EXPECT_EQ(m->trace.size(), 51u);  // 1000.50 … 1001.50 every 20 ms
}

TEST_F(NvmlMeterTest, TelemetryIsReadAtBothEdges) {
  load(script(R"({"kind": "constant", "watts": 250})"));
  auto meter = make_meter();
  const Measurement m = window(*meter, 1000.5, 1001.5);
  for (const Telemetry* t : {&m.at_begin, &m.at_end}) {
    EXPECT_EQ(*t->temperature_c, 40.0);
    EXPECT_EQ(*t->sm_clock_mhz, 1980u);
    EXPECT_EQ(*t->memory_clock_mhz, 2619u);
    EXPECT_DOUBLE_EQ(t->power_limit->value, 700.0);
    EXPECT_DOUBLE_EQ(t->power_average_1s->value, 250.0);  // (E(t) − E(t − 1 s)) / 1 s
    EXPECT_EQ(*t->throttle_reasons, 4u);
    EXPECT_EQ(t->throttle_reason_names, std::vector<std::string>{"sw_power_cap"});
    EXPECT_EQ(*t->pstate, 0);
  }
}

TEST_F(NvmlMeterTest, CorrectedEdgesRecoverTheEnergyBetweenCounterUpdatesAndTheEdges) {
  // Counter updates every 100 ms; the window runs from 1000.53 s to 1010.57 s, so both edges fall
  // between updates, and the power steps from 100 W to 300 W inside it.
  load(script(R"({"kind": "step", "before_watts": 100, "after_watts": 300, "at_s": 1005.005})"));
  auto meter = make_meter(/*correct_edges=*/true);
  const Measurement m = finely_polled_window(*meter, 1000000, 1000530, 1010570);
  ASSERT_EQ(m.status, WindowStatus::valid) << m.invalid_reason;
  ASSERT_EQ(m.edge_method, EdgeMethod::corrected) << m.edge_correction_skipped;
  // The plain difference covers 1000.5–1010.5 s: 100 W × 4.505 s + 300 W × 5.495 s = 2099 J.
  EXPECT_NEAR(m.counter_energy->value, 2099.0, 1e-9);
  // Each update is seen between polls 10 ms apart (1000.49 / 1000.50 s) and placed at their middle.
  // Begin staleness: 100 W × (1000.53 − 1000.495) s = 3.5 J; end: 300 W × (1010.57 − 1010.495) s =
  // 22.5 J; corrected 2099 + 22.5 − 3.5 = 2118 J.
  EXPECT_NEAR(m.edge_correction->value, 19.0, 1e-6);
  EXPECT_NEAR(m.energy->value, 2118.0, 1e-6);
  // The truth, 100 W × 4.475 s + 300 W × 5.565 s = 2117 J, lies inside the bound: half the 10-ms
  // interval at each edge's power (0.5 J + 1.5 J); the trace is flat at both edges.
  EXPECT_NEAR(m.edge_uncertainty->value, 2.0, 1e-6);
  EXPECT_LE(std::abs(m.energy->value - 2117.0), m.edge_uncertainty->value);
  // The plain counter bound would have been (100 + 300) W × 0.1 s = 40 J.
}

TEST_F(NvmlMeterTest, WithoutASeenUpdateAWindowKeepsCounterEdgesAndSaysWhy) {
  load(script(R"({"kind": "constant", "watts": 100})"));
  auto meter = make_meter(/*correct_edges=*/true);
  // No polling before begin: the counter's value at begin was never seen changing.
  const std::optional<Measurement> m = finely_polled_window(*meter, std::nullopt, 1000530, 1001570);
  ASSERT_EQ(m->status, WindowStatus::valid);
  EXPECT_EQ(m->edge_method, EdgeMethod::counter);
  EXPECT_NE(m->edge_correction_skipped.find("begin edge"), std::string::npos) << m->edge_correction_skipped;
  EXPECT_FALSE(m->edge_correction.has_value());
  EXPECT_NEAR(m->energy->value, 100.0, 1e-9);  // 1000.5–1001.5 s at 100 W
}

TEST_F(NvmlMeterTest, PlainMeterDoesNotCorrectEdges) {
  load(script(R"({"kind": "constant", "watts": 100})"));
  auto meter = make_meter();
  const std::optional<Measurement> m = finely_polled_window(*meter, 1000000, 1000530, 1001570);
  EXPECT_EQ(m->edge_method, EdgeMethod::counter);
  EXPECT_TRUE(m->edge_correction_skipped.empty());
  EXPECT_NEAR(m->energy->value, 100.0, 1e-9);
}

}  // namespace
}  // namespace ecocompute::meter
