// The server occupancy of a trial: time-weighted shares of a window from the /metrics readings, and a
// server without metrics recorded as unavailable rather than failing the trial.
#include "protocol/server_occupancy.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>

#include "meter/rapl_meter.hpp"
#include "protocol/serving_level.hpp"
#include "support/fake_openai_server.hpp"

namespace ecocompute::protocol {
namespace {

TEST(OccupancyShares, EachReadingHoldsUntilTheNextAndTheWindowClipsThem) {
  const std::vector<OccupancySample> samples{{Seconds{0.0}, 1}, {Seconds{1.0}, 4}, {Seconds{3.0}, 2.6}};
  OccupancyShares shares;
  shares.add(samples, Seconds{0.5}, Seconds{4.0});
  // 0.5 s at 1, 2 s at 4, 1 s at 2.6 (counted at 3).
  EXPECT_DOUBLE_EQ(shares.covered_s, 3.5);
  EXPECT_DOUBLE_EQ(shares.seconds_at.at(1), 0.5);
  EXPECT_DOUBLE_EQ(shares.seconds_at.at(4), 2.0);
  EXPECT_DOUBLE_EQ(shares.seconds_at.at(3), 1.0);
  ASSERT_TRUE(shares.mean().has_value());
  EXPECT_DOUBLE_EQ(*shares.mean(), (0.5 * 1 + 2.0 * 4 + 1.0 * 2.6) / 3.5);
  const auto share = shares.shares();
  EXPECT_DOUBLE_EQ(share.at(4), 2.0 / 3.5);
  // The reading at 0 s is before the window: it covers time there but is not one of its readings.
  EXPECT_EQ(shares.readings_inside, 2);
}

TEST(OccupancyShares, TimeBeforeTheFirstReadingIsNotCoveredAndTracesAdd) {
  OccupancyShares shares;
  const std::vector<OccupancySample> late{{Seconds{2.0}, 8}};
  shares.add(late, Seconds{0.0}, Seconds{3.0});
  EXPECT_DOUBLE_EQ(shares.covered_s, 1.0);
  const std::vector<OccupancySample> other{{Seconds{10.0}, 6}, {Seconds{11.0}, 8}};
  shares.add(other, Seconds{10.0}, Seconds{12.0});
  EXPECT_DOUBLE_EQ(shares.covered_s, 3.0);
  EXPECT_DOUBLE_EQ(shares.seconds_at.at(8), 2.0);
  EXPECT_DOUBLE_EQ(shares.seconds_at.at(6), 1.0);
}

TEST(OccupancyShares, NothingCoveredHasNoMeanAndNoShares) {
  OccupancyShares shares;
  shares.add({}, Seconds{0.0}, Seconds{1.0});
  const std::vector<OccupancySample> after{{Seconds{5.0}, 3}};
  shares.add(after, Seconds{0.0}, Seconds{1.0});
  EXPECT_FALSE(shares.mean().has_value());
  EXPECT_TRUE(shares.shares().empty());
  EXPECT_EQ(shares.readings_inside, 0);
}

// The fake server answers completions only: /metrics is a 404, which the trial records and survives.
TEST(OccupancySampler, AServerWithoutMetricsIsRecordedAsUnavailableAndTheTrialStillRuns) {
  ::ecocompute::testing::FakeOpenAiServer server([](const nlohmann::json&) { return ::ecocompute::testing::good_stream(4); });
  const engine::EndpointClient client(*engine::parse_endpoint_spec("F16=" + server.base_url() + "#fake-model"), {},
                                      system_clock());
  const LevelOptions options{.read_occupancy = true, .occupancy_interval = Seconds{0.01}};
  meter::NullMeter meter("no energy in this test");
  const std::vector<engine::CompletionRequest> requests{{"a b", 8}};
  const LevelRun run = run_level(client, requests, 2, 6, meter, *system_clock(), nullptr, options);
  EXPECT_EQ(run.failed_requests(), 0);
  EXPECT_TRUE(run.occupancy.samples.empty());
  EXPECT_NE(run.occupancy.unavailable.find("/metrics: HTTP 404"), std::string::npos) << run.occupancy.unavailable;
  EXPECT_NE(run.occupancy.unavailable.find("--metrics"), std::string::npos);
}

// A window opened once the sampler is constructed must begin inside its trace: the constructor returns
// only after the first reading, whose time (the midpoint of a slow /metrics answer) is then already past.
TEST(OccupancySampler, TheFirstReadingIsInBeforeTheConstructorReturns) {
  ::ecocompute::testing::FakeOpenAiServer server([](const nlohmann::json&) { return ::ecocompute::testing::good_stream(4); },
                                                 64, 0, /*with_metrics=*/true);
  server.delay_metrics(std::chrono::milliseconds(200));
  const engine::EndpointClient client(*engine::parse_endpoint_spec("F16=" + server.base_url() + "#fake-model"), {},
                                      system_clock());
  std::optional<OccupancySampler> sampler;
  sampler.emplace(client, *system_clock(), Seconds{0.05});
  const Seconds returned = system_clock()->now();
  const OccupancyTrace trace = sampler->stop();
  EXPECT_TRUE(trace.unavailable.empty()) << trace.unavailable;
  ASSERT_FALSE(trace.samples.empty());
  EXPECT_LE(trace.samples.front().at.value, returned.value);
  EXPECT_EQ(trace.samples.front().running, 0.0);
}

}  // namespace
}  // namespace ecocompute::protocol
