// One serving level against the scripted fake server: the closed loop, the steady-state window and
// the cases that make a window no measurement.
#include "protocol/serving_level.hpp"

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>

#include <gtest/gtest.h>

#include "protocol/serving_statistics.hpp"
#include "protocol/serving_sweep.hpp"
#include "support/fake_openai_server.hpp"

namespace ecocompute::protocol {
namespace {

using ::ecocompute::testing::FakeOpenAiServer;
using ::ecocompute::testing::FakeReply;

// A thread-safe meter of a device drawing a constant 100 W: energy = 100 W × the window's duration.
class ConstantPowerMeter final : public meter::Meter {
 public:
  [[nodiscard]] std::string source() const override { return "nvml-energy-counter"; }
  [[nodiscard]] std::string device() const override { return "constant 100 W"; }
  [[nodiscard]] bool measures_energy() const override { return true; }
  int windows_opened() const {
    std::lock_guard lock(mutex_);
    return opened_;
  }

 protected:
  meter::Window do_begin(std::string label) override {
    std::lock_guard lock(mutex_);
    ++opened_;
    starts_[next_] = system_clock()->now();
    return make_window(std::move(label), next_++);
  }
  Result<meter::Measurement> do_end(meter::Window& window) override {
    std::lock_guard lock(mutex_);
    meter::Measurement m;
    m.label = window.label();
    m.source = source();
    m.status = meter::WindowStatus::valid;
    m.duration = Seconds{system_clock()->now().value - starts_.at(window.id()).value};
    m.energy = Joules{100.0 * m.duration.value};
    close(window);
    return m;
  }

 private:
  mutable std::mutex mutex_;
  std::map<std::uint64_t, Seconds> starts_;
  std::uint64_t next_ = 1;
  int opened_ = 0;
};

engine::EndpointClient client_for(const FakeOpenAiServer& server, const std::string& label = "F16") {
  return engine::EndpointClient(*engine::parse_endpoint_spec(label + "=" + server.base_url() + "#fake-model"), {},
                                system_clock());
}

FakeReply paced_stream(int n) {
  FakeReply reply = ::ecocompute::testing::good_stream(n);
  reply.delay_between = std::chrono::milliseconds(20);
  return reply;
}

const std::vector<engine::CompletionRequest> kRequests{{"a b c", 16}, {"d e", 16}};

TEST(ServingLevel, KeepsCInFlightAndMetersASteadyWindowInsideTheWholeRun) {
  FakeOpenAiServer server([](const nlohmann::json&) { return paced_stream(6); });
  const auto client = client_for(server);
  ConstantPowerMeter meter;
  const LevelRun run = run_level(client, kRequests, 4, 16, meter, *system_clock(), nullptr);
  EXPECT_EQ(meter.windows_opened(), 2);
  ASSERT_EQ(run.records.size(), 16u);
  EXPECT_EQ(run.failed_requests(), 0);
  ASSERT_TRUE(run.is_ok()) << run.reason();
  EXPECT_EQ(server.bodies().size(), 16u);
  // Every token of every request is in the whole run; the steady window holds a part of them.
  EXPECT_DOUBLE_EQ(run.whole.tokens, 16.0 * 6.0);
  EXPECT_GT(run.steady.tokens, 0.0);
  EXPECT_LT(run.steady.tokens, run.whole.tokens);
  EXPECT_GE(run.steady.begin.value, run.whole.begin.value);
  EXPECT_LE(run.steady.end.value, run.whole.end.value);
  const ServingTrialFigures f = trial_figures(run);
  ASSERT_TRUE(f.window_mj_per_token && f.whole_mj_per_token && f.joules_per_request);
  EXPECT_DOUBLE_EQ(*f.window_mj_per_token, run.steady.energy()->value / run.steady.tokens * 1000.0);
  EXPECT_DOUBLE_EQ(*f.joules_per_request, run.whole.energy()->value / 16.0);
}

TEST(ServingLevel, TooFewRequestsToReachCStreamsLeavesNoWindow) {
  FakeOpenAiServer server([](const nlohmann::json&) { return paced_stream(3); });
  const auto client = client_for(server);
  ConstantPowerMeter meter;
  const LevelRun run = run_level(client, kRequests, 4, 2, meter, *system_clock(), nullptr);
  EXPECT_FALSE(run.is_ok());
  EXPECT_NE(run.reason().find("drained before all 4 streams"), std::string::npos) << run.reason();
  EXPECT_FALSE(trial_figures(run).window_mj_per_token.has_value());
}

TEST(ServingLevel, AFailedRequestInsideTheWindowInvalidatesIt) {
  std::atomic<int> count{0};
  FakeOpenAiServer server([&count](const nlohmann::json&) {
    if (count.fetch_add(1) == 6) {
      FakeReply error;
      error.status = 500;
      error.body = R"({"error":"boom"})";
      return error;
    }
    return paced_stream(6);
  });
  const auto client = client_for(server);
  ConstantPowerMeter meter;
  const LevelRun run = run_level(client, kRequests, 2, 12, meter, *system_clock(), nullptr);
  EXPECT_EQ(run.failed_requests(), 1);
  EXPECT_FALSE(run.whole.usable());
  EXPECT_FALSE(run.is_ok());
  EXPECT_NE(run.reason().find("failed request"), std::string::npos) << run.reason();
  EXPECT_NE(run.first_request_failure().find("HTTP 500"), std::string::npos) << run.first_request_failure();
  const ServingAnalysis analysis = analyze_serving(std::vector{run}, 1);
  ASSERT_EQ(analysis.levels.size(), 1u);
  EXPECT_EQ(analysis.levels[0].requests_failed, 1);
  ASSERT_EQ(analysis.levels[0].request_failures.size(), 1u);
  EXPECT_NE(analysis.levels[0].request_failures[0].first.find("boom"), std::string::npos);
  EXPECT_EQ(analysis.levels[0].n_ok, 0u);
}

// A cancel in the middle of a level: the requests in flight fail as cancelled, the ones not yet taken
// are never sent. The two are counted apart (a run stopped on 2026-12-01 reported its unsent requests
// as failed), and only the sent ones enter the level's failure counts.
TEST(ServingLevel, ACancelFailsTheRequestsInFlightAndLeavesTheRestUnsent) {
  std::atomic<bool> cancel{false};
  std::atomic<int> count{0};
  FakeOpenAiServer server([&](const nlohmann::json&) {
    if (count.fetch_add(1) == 3) cancel.store(true);
    return paced_stream(6);
  });
  const auto client = client_for(server);
  ConstantPowerMeter meter;
  const LevelRun run = run_level(client, kRequests, 2, 12, meter, *system_clock(), &cancel);
  EXPECT_TRUE(run.cancelled);
  const auto ok = std::count_if(run.records.begin(), run.records.end(), [](const auto& r) { return r.ok; });
  EXPECT_GE(run.failed_requests(), 1);
  EXPECT_GE(run.unsent_requests(), 1);
  EXPECT_EQ(ok + run.failed_requests() + run.unsent_requests(), 12);
  EXPECT_EQ(run.first_request_failure(), "cancelled");
  const ServingAnalysis analysis = analyze_serving(std::vector{run}, 1);
  ASSERT_EQ(analysis.levels.size(), 1u);
  EXPECT_EQ(analysis.levels[0].requests_failed, run.failed_requests());
  ASSERT_EQ(analysis.levels[0].request_failures.size(), 1u);
  EXPECT_EQ(analysis.levels[0].request_failures[0].second, run.failed_requests());
}

TEST(ServingLevel, TokensInsideSpreadUsageOverChunks) {
  engine::RequestRecord r;
  r.ok = true;
  r.streamed = true;
  r.output_tokens = 10;
  r.chunk_times = {Seconds{1.0}, Seconds{2.0}, Seconds{3.0}, Seconds{4.0}, Seconds{5.0}};
  EXPECT_DOUBLE_EQ(tokens_inside(std::vector{r}, Seconds{1.5}, Seconds{3.5}), 4.0);
  r.streamed = false;
  r.sent = Seconds{0.0};
  r.finished = Seconds{10.0};
  EXPECT_DOUBLE_EQ(tokens_inside(std::vector{r}, Seconds{5.0}, Seconds{20.0}), 5.0);
  r.ok = false;
  EXPECT_DOUBLE_EQ(tokens_inside(std::vector{r}, Seconds{0.0}, Seconds{20.0}), 0.0);
}

TEST(ServingSweep, BlocksRunEveryLevelAndTheBaselineFirstThenPairPerLevel) {
  const auto plan = sweep_schedule(SweepDesign{{1, 4}, 2, 0, 1}, 2);
  ASSERT_EQ(plan.size(), 8u);
  EXPECT_EQ(plan[0].endpoint, 0u);
  EXPECT_EQ(plan[0].concurrency, 1);
  EXPECT_EQ(plan[1].endpoint, 1u);
  EXPECT_EQ(plan[2].concurrency, 4);
  EXPECT_EQ(plan[2].endpoint, 0u);
  EXPECT_EQ(plan[4].block, 1);

  FakeOpenAiServer server([](const nlohmann::json&) { return paced_stream(4); });
  std::vector<engine::EndpointClient> clients{client_for(server, "F16"), client_for(server, "Q8_0")};
  ConstantPowerMeter meter;
  SweepDesign design{{1, 2}, 2, 1, 3};
  std::vector<std::string> switched;
  const SweepResult sweep = run_sweep(
      clients, kRequests, design, meter, *system_clock(),
      {[&](const engine::EndpointSpec& spec) -> Result<void> {
        switched.push_back(spec.label);
        return {};
      }, {}},
      {}, nullptr);
  ASSERT_EQ(sweep.runs.size(), 8u);
  EXPECT_EQ(switched.size(), 8u);  // the endpoint changes before every trial in this plan
  const ServingAnalysis analysis = analyze_serving(sweep.runs, 2);
  for (const LevelRun& r : sweep.runs) EXPECT_TRUE(r.is_ok()) << r.label << " C=" << r.concurrency << ": " << r.reason();
  const ServingPaired* paired = analysis.find_paired(1, 2);
  ASSERT_NE(paired, nullptr);
  EXPECT_EQ(paired->delta_pct.n, 2u);
  ASSERT_EQ(analysis.break_even.size(), 1u);
  const ServingLevelSummary* level = analysis.find(0, 2);
  ASSERT_NE(level, nullptr);
  EXPECT_EQ(level->n_ok, 2u);
  EXPECT_EQ(level->requests_ok, 2 * 6);
  EXPECT_TRUE(level->ttft_s.p50.has_value());
  EXPECT_TRUE(level->itl_s.p99.has_value());
}

}  // namespace
}  // namespace ecocompute::protocol

namespace ecocompute::protocol {
namespace {

TEST(ServingSweep, AFailedEndpointSwitchStopsTheSweepNamingTheEndpoint) {
  FakeOpenAiServer server([](const nlohmann::json&) { return ::ecocompute::testing::good_stream(2); });
  std::vector<engine::EndpointClient> clients{client_for(server, "F16"), client_for(server, "Q8_0")};
  ConstantPowerMeter meter;
  const SweepResult sweep = run_sweep(
      clients, kRequests, SweepDesign{{1}, 1, 0, 1}, meter, *system_clock(),
      {[](const engine::EndpointSpec& spec) -> Result<void> {
        if (spec.label == "Q8_0") return unexpected(ErrorCode::unavailable, "restart command exited with status 1");
        return {};
      }, {}},
      {}, nullptr);
  ASSERT_EQ(sweep.runs.size(), 1u);
  EXPECT_EQ(sweep.runs[0].label, "F16");
  EXPECT_NE(sweep.failure.find("switching to endpoint Q8_0 failed"), std::string::npos) << sweep.failure;
}

TEST(ServingSweep, LevelByLevelRunsEveryBlockOfALevelBeforeTheNextAndSwitchesOncePerLevel) {
  SweepDesign design{{1, 4}, 2, 0, 1};
  design.level_by_level = true;
  const auto plan = sweep_schedule(design, 2);
  ASSERT_EQ(plan.size(), 8u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(plan[i].concurrency, 1) << i;
  EXPECT_EQ(plan[1].endpoint, 1u);
  EXPECT_EQ(plan[2].block, 1);
  EXPECT_EQ(plan[2].endpoint, 0u);
  EXPECT_EQ(plan[4].concurrency, 4);
  EXPECT_EQ(plan[4].block, 0);

  FakeOpenAiServer server([](const nlohmann::json&) { return ::ecocompute::testing::good_stream(2); });
  std::vector<engine::EndpointClient> clients{client_for(server, "F16"), client_for(server, "Q8_0")};
  ConstantPowerMeter meter;
  std::vector<std::string> events;
  const SweepResult sweep = run_sweep(
      clients, kRequests, design, meter, *system_clock(),
      {[&](const engine::EndpointSpec& spec) -> Result<void> {
         events.push_back(spec.label);
         return {};
       },
       [&](int concurrency) -> Result<void> {
         events.push_back("C=" + std::to_string(concurrency));
         return {};
       }},
      {}, nullptr);
  ASSERT_EQ(sweep.runs.size(), 8u);
  EXPECT_EQ(sweep.runs[2].concurrency, 1);
  EXPECT_EQ(sweep.runs[2].block, 1);
  // The level switch runs once per level and before that level's first endpoint switch.
  const std::vector<std::string> expected{"C=1", "F16", "Q8_0", "F16", "Q8_0", "C=4", "F16", "Q8_0", "F16", "Q8_0"};
  EXPECT_EQ(events, expected);
}

TEST(ServingSweep, AFailedLevelSwitchStopsTheSweepNamingTheLevelAndKeepsFinishedTrials) {
  FakeOpenAiServer server([](const nlohmann::json&) { return ::ecocompute::testing::good_stream(2); });
  std::vector<engine::EndpointClient> clients{client_for(server, "F16")};
  ConstantPowerMeter meter;
  SweepDesign design{{1, 8}, 1, 0, 1};
  design.level_by_level = true;
  const SweepResult sweep = run_sweep(
      clients, kRequests, design, meter, *system_clock(),
      {{},
       [](int concurrency) -> Result<void> {
         if (concurrency == 8) return unexpected(ErrorCode::unavailable, "--level-cmd 'start 8' exited with status 1");
         return {};
       }},
      {}, nullptr);
  ASSERT_EQ(sweep.runs.size(), 1u);
  EXPECT_EQ(sweep.runs[0].concurrency, 1);
  EXPECT_NE(sweep.failure.find("switching to concurrency 8 failed: --level-cmd 'start 8'"), std::string::npos)
      << sweep.failure;
}

TEST(ServingSweep, ACancelStopsBeforeTheNextTrial) {
  FakeOpenAiServer server([](const nlohmann::json&) { return ::ecocompute::testing::good_stream(2); });
  std::vector<engine::EndpointClient> clients{client_for(server, "F16")};
  ConstantPowerMeter meter;
  std::atomic<bool> cancel{false};
  const SweepResult sweep = run_sweep(
      clients, kRequests, SweepDesign{{1, 2}, 2, 0, 1}, meter, *system_clock(), {},
      [&](const LevelRun&, std::size_t, std::size_t) { cancel.store(true); }, &cancel);
  EXPECT_TRUE(sweep.cancelled);
  EXPECT_EQ(sweep.runs.size(), 1u);
}

}  // namespace
}  // namespace ecocompute::protocol
