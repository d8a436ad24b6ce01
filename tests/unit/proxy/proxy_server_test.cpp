// The proxy in this process, between an HTTP client and the tests' fake OpenAI server, with the GPU
// counter read from the fake NVML on the real clock: conservation of the counter's energy, streams
// unchanged apart from the energy fields, and the bad-upstream answers.
#include "support/fake_openai_server.hpp"

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <future>
#include <thread>

#include "proxy/gpu_energy_counter.hpp"
#include "proxy/proxy_server.hpp"
#include "support/prometheus_text.hpp"

namespace ecocompute::proxy {
namespace {

using testing::FakeOpenAiServer;
using testing::FakeReply;
constexpr const char* kGpu = "GPU-7a1e0000-0000-4000-8000-00000000c0de";

// The fake NVML on the wall clock: one 300 W GPU whose counter updates every 20 ms.
class FakeNvmlScript {
 public:
  FakeNvmlScript() {
    path_ = std::filesystem::temp_directory_path() / ("proxy_fake_nvml_" + std::to_string(::getpid()) + ".json");
    std::ofstream(path_) << R"({"clock": "real", "devices": [{"name": "NVIDIA H200", "uuid": ")" << kGpu
                         << R"(", "power": {"kind": "constant", "watts": 300}, "counter_update_period_s": 0.02}]})";
    setenv("FAKE_NVML_SCRIPT", path_.c_str(), 1);
  }
  ~FakeNvmlScript() {
    unsetenv("FAKE_NVML_SCRIPT");
    std::filesystem::remove(path_);
  }

 private:
  std::filesystem::path path_;
};

FakeReply reply_for(const nlohmann::json& body) {
  if (!body.is_object()) {
    FakeReply refusal;
    refusal.status = 400;
    refusal.stream = false;
    refusal.body = R"({"error":{"message":"the body is not JSON"}})";
    return refusal;
  }
  if (body.value("stream", false)) {
    FakeReply reply = testing::good_stream(12, 9);
    reply.delay_between = std::chrono::milliseconds(3);
    return reply;
  }
  FakeReply reply;
  reply.stream = false;
  reply.body = body.value("model", "") == "malformed" ? "{\"choices\": [trunc"
                                                       : R"({"id":"x","object":"text_completion","choices":[{"text":"hi"}],)"
                                                         R"("usage":{"prompt_tokens":7,"completion_tokens":2,"total_tokens":9}})";
  return reply;
}

class ProxyServerTest : public ::testing::Test {
 protected:
  void start(const std::string& upstream_url) {
    auto counter = GpuEnergyCounter::open({kGpu}, FAKE_NVML_PATH);
    ASSERT_TRUE(counter.has_value()) << counter.error().describe();
    poller_ = std::make_unique<CounterPoller>(std::move(*counter), ledger_, system_clock(), std::chrono::milliseconds(2));
    ASSERT_TRUE(poller_->start().has_value());
    ProxyServerOptions options;
    options.upstream = *parse_upstream_url(upstream_url);
    options.listen = {"127.0.0.1", 0};
    options.threads = 32;
    options.upstream_timeouts.connect = std::chrono::seconds(2);
    proxy_ = std::make_unique<ProxyServer>(options, ledger_, metrics_, system_clock());
    auto port = proxy_->bind();
    ASSERT_TRUE(port.has_value()) << port.error().describe();
    port_ = *port;
    thread_ = std::thread([this] { proxy_->listen(); });
    while (!proxy_->is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  void TearDown() override {
    if (proxy_) proxy_->stop();
    if (thread_.joinable()) thread_.join();
    if (poller_) poller_->stop();
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(30, 0);
    return c;
  }
  // Waits (bounded) until `requests` requests are settled and every closed interval is booked.
  LedgerTotals settled_totals(std::uint64_t requests) {
    LedgerTotals totals = ledger_.totals();
    for (int i = 0; i < 5000 && (totals.settled_requests < requests || totals.unsettled_j > 0.0); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      totals = ledger_.totals();
    }
    return totals;
  }

  FakeNvmlScript script_;
  ProxyMetrics metrics_;
  EnergyLedger ledger_{PrefillWeightRule{}, [this](const SettledRequest& request) { metrics_.record_settled(request); }};
  std::unique_ptr<CounterPoller> poller_;
  std::unique_ptr<ProxyServer> proxy_;
  std::thread thread_;
  int port_ = 0;
};

const std::string kStreamBody = R"({"model":"fake-model","prompt":"one two three","max_tokens":12,"stream":true})";
const std::string kPlainBody = R"({"model":"fake-model","prompt":"one two three","max_tokens":2})";

TEST_F(ProxyServerTest, AttributedPlusIdleEnergyIsTheCountersEnergyWithinAPerMille) {
  FakeOpenAiServer upstream(reply_for);
  start(upstream.base_url().substr(0, upstream.base_url().size() - 3));
  // Some counter intervals with no request in flight first, so that idle has a share to conserve.
  for (int i = 0; i < 5000 && ledger_.totals().idle_j == 0.0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  std::vector<std::future<int>> answered;
  for (int worker = 0; worker < 6; ++worker) {
    answered.push_back(std::async(std::launch::async, [this, worker] {
      int ok = 0;
      httplib::Client c = client();
      for (int i = 0; i < 5; ++i) {
        const bool stream = (worker + i) % 2 == 0;
        auto response = c.Post("/v1/completions", stream ? kStreamBody : kPlainBody, "application/json");
        ok += response && response->status == 200 ? 1 : 0;
      }
      return ok;
    }));
  }
  int ok = 0;
  for (auto& future : answered) ok += future.get();
  EXPECT_EQ(ok, 30);
  EXPECT_EQ(settled_totals(30).settled_requests, 30u);
  poller_->stop();  // no interval closes while the accounts are compared
  const LedgerTotals totals = ledger_.totals();
  double attributed = 0.0;
  for (const auto& [model, joules] : totals.attributed_j) attributed += joules;
  ASSERT_GT(totals.counter_j, 0.0);
  EXPECT_GT(attributed, 0.0);
  EXPECT_GT(totals.idle_j, 0.0);
  // The counter's own advance from the proxy's first reading to its last: every closed interval adds
  // up to it, and attributed + idle to within a per mille of it.
  const double advance = poller_->counter_advance_j();
  EXPECT_NEAR(totals.counter_j, advance, 1e-9 * advance);
  EXPECT_NEAR(attributed + totals.idle_j, advance, 1e-3 * advance);
  std::printf("conservation: counter %.6f J, attributed %.6f J + idle %.6f J, off by %.3g %%\n", advance, attributed,
              totals.idle_j, 100.0 * (attributed + totals.idle_j - advance) / advance);
  EXPECT_EQ(totals.unsettled_j, 0.0);
  // The same accounts through /metrics, as a scraper reads them.
  auto response = client().Get("/metrics");
  ASSERT_TRUE(response);
  const auto text = testing::parse_prometheus_text(response->body);
  ASSERT_TRUE(text.problems.empty()) << text.problems.front();
  const double counter = text.sum("ecocompute_proxy_counter_energy_joules_total");
  EXPECT_NEAR(text.sum("ecocompute_proxy_attributed_energy_joules_total") + text.sum("ecocompute_proxy_idle_energy_joules_total") +
                  text.sum("ecocompute_proxy_unsettled_energy_joules"),
              counter, 1e-3 * counter);
  EXPECT_EQ(text.sum("ecocompute_proxy_request_energy_joules_count", "fake-model"), 30.0);
}

TEST_F(ProxyServerTest, AStreamArrivesUnchangedApartFromTheEnergyFields) {
  FakeOpenAiServer upstream(reply_for);
  start("http://127.0.0.1:" + std::to_string(upstream.port()));
  auto response = client().Post("/v1/completions", kStreamBody, "application/json");
  ASSERT_TRUE(response);
  ASSERT_EQ(response->status, 200);
  std::string expected;
  const FakeReply original = reply_for(nlohmann::json::parse(kStreamBody));
  for (std::size_t i = 0; i + 2 < original.events.size(); ++i) expected += original.events[i];
  ASSERT_TRUE(response->body.starts_with(expected)) << response->body;
  ASSERT_TRUE(response->body.ends_with(testing::done_event));
  const std::string last = response->body.substr(expected.size(), response->body.size() - expected.size() - testing::done_event.size());
  nlohmann::json edited = nlohmann::json::parse(last.substr(6));
  EXPECT_GT(edited["usage"]["energy_j"].get<double>(), 0.0);
  EXPECT_EQ(edited["usage"]["energy_basis"], "attributed");
  EXPECT_NEAR(edited["usage"]["energy_j_per_output_token"].get<double>(), edited["usage"]["energy_j"].get<double>() / 12.0, 1e-9);
  for (const char* key : {"energy_j", "energy_j_per_output_token", "energy_j_per_total_token", "energy_estimated_j", "energy_basis"}) {
    edited["usage"].erase(key);
  }
  EXPECT_EQ(edited, nlohmann::json::parse(original.events[original.events.size() - 2].substr(6)));
}

TEST_F(ProxyServerTest, AClientLeavingMidStreamEndsTheRequest) {
  FakeOpenAiServer upstream([](const nlohmann::json&) {
    FakeReply reply = testing::good_stream(200, 9);
    reply.delay_between = std::chrono::milliseconds(5);
    return reply;
  });
  start("http://127.0.0.1:" + std::to_string(upstream.port()));
  httplib::Request request;
  request.method = "POST";
  request.path = "/v1/completions";
  request.body = kStreamBody;
  request.set_header("Content-Type", "application/json");
  std::size_t received = 0;
  request.content_receiver = [&](const char*, std::size_t length, std::uint64_t, std::uint64_t) {
    received += length;
    return received < 600;  // a few events, then the client hangs up
  };
  httplib::Client c = client();
  auto result = c.send(request);
  EXPECT_FALSE(result);  // cancelled by the client itself
  const LedgerTotals totals = settled_totals(1);
  EXPECT_EQ(totals.in_flight, 0u);
  EXPECT_EQ(totals.settled_requests, 1u);
  auto metrics = client().Get("/metrics");  // and the proxy still answers
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
}

TEST_F(ProxyServerTest, AnUnstreamedAnswerCarriesItsEnergyInUsageAndHeader) {
  FakeOpenAiServer upstream(reply_for);
  start("http://127.0.0.1:" + std::to_string(upstream.port()));
  auto response = client().Post("/v1/completions", kPlainBody, "application/json");
  ASSERT_TRUE(response);
  ASSERT_EQ(response->status, 200);
  const nlohmann::json body = nlohmann::json::parse(response->body);
  EXPECT_EQ(body["usage"]["completion_tokens"], 2);
  EXPECT_GE(body["usage"]["energy_j"].get<double>(), 0.0);
  ASSERT_TRUE(response->has_header(kEnergyHeader));
  EXPECT_NEAR(std::stod(response->get_header_value(kEnergyHeader)), body["usage"]["energy_j"].get<double>(),
              1e-5 * body["usage"]["energy_j"].get<double>() + 1e-12);
}

TEST_F(ProxyServerTest, MalformedUpstreamJsonPassesThroughUntouched) {
  FakeOpenAiServer upstream(reply_for);
  start("http://127.0.0.1:" + std::to_string(upstream.port()));
  auto response = client().Post("/v1/completions", R"({"model":"malformed","prompt":"x"})", "application/json");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, "{\"choices\": [trunc");
  EXPECT_FALSE(response->has_header(kEnergyHeader));
}

TEST_F(ProxyServerTest, OtherPathsPassThrough) {
  FakeOpenAiServer upstream(reply_for);
  start("http://127.0.0.1:" + std::to_string(upstream.port()));
  auto response = client().Get("/v1/models");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 200);
  EXPECT_EQ(response->body, R"({"object":"list","data":[{"id":"fake-model","object":"model"}]})");
  EXPECT_EQ(client().Get("/nowhere")->status, 404);
}

TEST_F(ProxyServerTest, AnUnreachableUpstreamIsA502NamingIt) {
  // A port bound a moment ago and released without listening: nothing listens there.
  int dead_port = 0;
  {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    ASSERT_EQ(::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    ASSERT_EQ(::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length), 0);
    dead_port = ntohs(address.sin_port);
    ::close(fd);
  }
  const std::string url = "http://127.0.0.1:" + std::to_string(dead_port);
  start(url);
  for (const char* path : {"/v1/chat/completions", "/v1/models"}) {
    auto response = std::string(path) == "/v1/models" ? client().Get(path) : client().Post(path, kPlainBody, "application/json");
    ASSERT_TRUE(response) << path << ": " << httplib::to_string(response.error());
    EXPECT_EQ(response->status, 502) << path;
    const nlohmann::json body = nlohmann::json::parse(response->body);
    EXPECT_EQ(body["error"]["type"], "upstream_unreachable");
    EXPECT_NE(body["error"]["message"].get<std::string>().find(url), std::string::npos) << response->body;
  }
  EXPECT_EQ(ledger_.totals().in_flight, 0u);
}

TEST_F(ProxyServerTest, AMalformedRequestIsForwardedAndDoesNotCrashTheProxy) {
  FakeOpenAiServer upstream(reply_for);
  start("http://127.0.0.1:" + std::to_string(upstream.port()));
  auto response = client().Post("/v1/chat/completions", std::string("\0\xff{\"model\":", 11), "application/json");
  ASSERT_TRUE(response);
  EXPECT_EQ(response->status, 400);  // the server's refusal, passed through untouched
  EXPECT_EQ(response->body, R"({"error":{"message":"the body is not JSON"}})");
  auto metrics = client().Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("model=\"unknown\""), std::string::npos);
}

}  // namespace
}  // namespace ecocompute::proxy
