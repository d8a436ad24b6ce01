// A steady window's energy split by the server's occupancy: the power trace says how the counter's
// energy was spread in time, the /metrics readings what batch ran when, the chunk times whose tokens.
#include "protocol/occupancy_energy.hpp"

#include <gtest/gtest.h>

namespace ecocompute::protocol {
namespace {

constexpr std::int64_t kWallOffsetUs = 1'000'000'000;

engine::RequestRecord streamed_request(std::int64_t tokens, double first_chunk_s, double last_chunk_s) {
  engine::RequestRecord r;
  r.ok = true;
  r.streamed = true;
  r.output_tokens = tokens;
  r.sent = Seconds{first_chunk_s - 0.01};
  r.finished = Seconds{last_chunk_s + 0.01};
  for (std::int64_t i = 0; i < tokens; ++i) {
    r.chunk_times.push_back(Seconds{first_chunk_s + (last_chunk_s - first_chunk_s) * static_cast<double>(i) /
                                                        static_cast<double>(tokens - 1)});
  }
  return r;
}

// Steady window [10, 14] s on the run's clock, 1000 J on the counter; the driver's samples every 0.1 s
// from 10.05 s: 100 W before 12 s, 300 W after. One request streamed 20 tokens in [10.1, 11.9] while
// the server ran 1 request; then four streamed 80 in [12.1, 13.9] while it ran 4.
LevelRun two_phase_run() {
  LevelRun run;
  run.concurrency = 4;
  run.wall_minus_clock_us = kWallOffsetUs;
  run.steady.begin = Seconds{10.0};
  run.steady.end = Seconds{14.0};
  meter::Measurement m;
  m.status = meter::WindowStatus::valid;
  m.energy = Joules{1000.0};
  for (int i = 0; i < 40; ++i) {
    const double at = 10.05 + 0.1 * i;
    m.trace.push_back(meter::PowerSample{static_cast<std::uint64_t>(kWallOffsetUs + std::llround(at * 1e6)),
                                         Watts{at < 12.0 ? 100.0 : 300.0}});
  }
  run.steady.measurement = m;
  run.records = {streamed_request(20, 10.1, 11.9)};
  for (int i = 0; i < 4; ++i) run.records.push_back(streamed_request(20, 12.1 + 0.01 * i, 13.9 - 0.01 * i));
  run.occupancy.samples = {{Seconds{9.5}, 1.0}, {Seconds{12.0}, 4.0}};
  return run;
}

TEST(OccupancyEnergy, TheWindowsEnergyIsSpreadByThePowerTraceAndAddsUpToTheCounter) {
  const OccupancySplit split = split_by_occupancy(two_phase_run());
  ASSERT_TRUE(split.not_split.empty()) << split.not_split;
  ASSERT_EQ(split.at.size(), 2u);
  // The trace holds 202.5 J before 12 s (100 W, the last 0.05 s rising to 200 W) and 597.5 J after;
  // scaled to the counter's 1000 J: × 1.25.
  EXPECT_NEAR(split.at.at(1).joules, 253.125, 1e-6);
  EXPECT_NEAR(split.at.at(4).joules, 746.875, 1e-6);
  EXPECT_NEAR(split.at.at(1).joules + split.at.at(4).joules, split.window_joules, 1e-9);
  EXPECT_DOUBLE_EQ(split.at.at(1).seconds, 2.0);
  EXPECT_DOUBLE_EQ(split.at.at(4).seconds, 2.0);
  EXPECT_DOUBLE_EQ(split.at.at(1).tokens, 20.0);
  EXPECT_DOUBLE_EQ(split.at.at(4).tokens, 80.0);
}

TEST(OccupancyEnergy, AWindowOverTwoGpusIsSpreadByBothTraces) {
  // The second GPU draws 300 W before 12 s and 100 W after: together the two draw 400 W throughout,
  // so the counter's energy is split by time alone.
  LevelRun run = two_phase_run();
  meter::Measurement second = *run.steady.measurement;
  for (meter::PowerSample& s : second.trace) s.power = Watts{400.0 - s.power.value};
  meter::Measurement first = *run.steady.measurement;
  run.steady.measurement->trace.clear();
  run.steady.measurement->per_device = {first, second};
  const OccupancySplit split = split_by_occupancy(run);
  ASSERT_TRUE(split.not_split.empty()) << split.not_split;
  EXPECT_NEAR(split.at.at(1).joules, 500.0, 1e-6);
  EXPECT_NEAR(split.at.at(4).joules, 500.0, 1e-6);
}

TEST(OccupancyEnergy, ReadingsThatBeginLateLeaveTheEarlierEnergyUnsplit) {
  LevelRun run = two_phase_run();
  run.occupancy.samples = {{Seconds{12.0}, 4.0}};
  const OccupancySplit split = split_by_occupancy(run);
  ASSERT_EQ(split.at.size(), 1u);
  EXPECT_NEAR(split.at.at(4).joules, 746.875, 1e-6);
  EXPECT_LT(split.at.at(4).joules, split.window_joules);
}

TEST(OccupancyEnergy, SplitsAddOccupancyByOccupancy) {
  const OccupancySplit one = split_by_occupancy(two_phase_run());
  std::map<int, OccupancyEnergy> total;
  add_split(total, one.at);
  add_split(total, one.at);
  EXPECT_NEAR(total.at(4).joules, 2 * 746.875, 1e-6);
  EXPECT_DOUBLE_EQ(total.at(1).tokens, 40.0);
}

TEST(OccupancyEnergy, NoEnergyNoTraceOrNoReadingsSayWhy) {
  LevelRun unmetered = two_phase_run();
  unmetered.steady.measurement->status = meter::WindowStatus::unavailable;
  unmetered.steady.measurement->energy.reset();
  EXPECT_EQ(split_by_occupancy(unmetered).not_split, "the trial's steady window has no energy");

  LevelRun no_trace = two_phase_run();
  no_trace.steady.measurement->trace.clear();
  const OccupancySplit without = split_by_occupancy(no_trace);
  EXPECT_EQ(without.not_split, "no power trace over the steady window");
  EXPECT_TRUE(without.at.empty());

  LevelRun no_metrics = two_phase_run();
  no_metrics.occupancy.samples.clear();
  no_metrics.occupancy.unavailable = "HTTP 404 from /metrics";
  EXPECT_EQ(split_by_occupancy(no_metrics).not_split, "HTTP 404 from /metrics");

  LevelRun cancelled = two_phase_run();
  cancelled.cancelled = true;
  EXPECT_FALSE(split_by_occupancy(cancelled).not_split.empty());
}

}  // namespace
}  // namespace ecocompute::protocol
