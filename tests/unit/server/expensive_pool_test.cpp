// Expensive routes run on the server's bounded pool: with every pool thread busy and the queue holding
// more, /healthz is still answered (a liveness check: it returns at all, no timing is asserted); past
// the queue's bound a request is answered 503 at once; and eight worst-case optimize requests in flight
// on the real API leave /healthz answering and each of them answered.
#define CPPHTTPLIB_OPENSSL_SUPPORT
#define CPPHTTPLIB_ZLIB_SUPPORT
#define CPPHTTPLIB_BROTLI_SUPPORT
#include <httplib.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "server/api_error.hpp"
#include "server/http_adapter.hpp"
#include "server_test_support.hpp"

namespace ecocompute::server {
namespace {

// A gate the blocking route waits at until the test opens it.
struct Gate {
  std::mutex mutex;
  std::condition_variable opened_cv;
  bool opened = false;
  void wait() {
    std::unique_lock lock(mutex);
    opened_cv.wait(lock, [this] { return opened; });
  }
  void open() {
    std::lock_guard lock(mutex);
    opened = true;
    opened_cv.notify_all();
  }
};

std::unique_ptr<httplib::Client> client_for(int port) {
  auto client = std::make_unique<httplib::Client>("127.0.0.1", port);
  client->set_connection_timeout(10);
  client->set_read_timeout(120);
  return client;
}

// A server whose one expensive route waits at a gate; the gate opens and the server stops at the end of
// the test whatever happened, so no request is left waiting.
class GatedServer : public ::testing::Test {
 protected:
  void SetUp() override {
    router_.add("GET", "/healthz", [](const HttpRequest&) -> Result<HttpResponse> { return json_response(200, R"({"status":"ok"})"); },
                RouteOptions{.rate_limited = false});
    router_.add("POST", "/slow", [this](const HttpRequest&) -> Result<HttpResponse> {
      gate_.wait();
      return json_response(200, "{}");
    }, RouteOptions{.expensive = true});
    HttpServerOptions options{.threads = 2};
    options.work = WorkPoolOptions{.threads = 2, .max_queued = 6, .nice_increment = 0};
    server_ = std::make_unique<HttpServer>(router_, options);
    auto port = server_->bind("127.0.0.1", 0);
    ASSERT_TRUE(port);
    port_ = *port;
    loop_ = std::thread([this] { server_->listen(); });
  }
  void TearDown() override {
    gate_.open();
    for (auto& f : slow_) f.wait();
    server_->stop();
    loop_.join();
  }
  // Sends one request to the gated route and waits (polling, bounded at 60 s) until the pool holds it.
  void send_slow() {
    const std::size_t before = server_->expensive_in_flight();
    slow_.push_back(std::async(std::launch::async, [this] {
      auto answer = client_for(port_)->Post("/slow", "{}", "application/json");
      return answer ? answer->status : -1;
    }));
    for (int i = 0; i < 6000 && server_->expensive_in_flight() <= before; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }

  RateLimiter limiter_{0};
  Router router_{limiter_};
  Gate gate_;
  std::unique_ptr<HttpServer> server_;
  int port_ = 0;
  std::thread loop_;
  std::vector<std::future<int>> slow_;
};

TEST_F(GatedServer, HealthzAnswersWhileEveryPoolThreadIsBusyAndAFullQueueIs503) {
  for (int i = 0; i < 8; ++i) send_slow();  // 2 running at the gate, 6 queued
  ASSERT_EQ(server_->expensive_in_flight(), 8u);
  auto health = client_for(port_)->Get("/healthz");
  ASSERT_TRUE(health) << "no answer from /healthz with the pool busy";
  EXPECT_EQ(health->status, 200);
  // A ninth finds the queue full: refused at once rather than left waiting.
  auto ninth = client_for(port_)->Post("/slow", "{}", "application/json");
  ASSERT_TRUE(ninth);
  EXPECT_EQ(ninth->status, 503);
  EXPECT_EQ(ninth->get_header_value("Retry-After"), "1");
  EXPECT_NE(ninth->body.find("busy"), std::string::npos) << ninth->body;
  gate_.open();
  for (auto& f : slow_) EXPECT_EQ(f.get(), 200);
  slow_.clear();
}

TEST(ExpensivePool, EightWorstCaseOptimizeRequestsInFlightLeaveHealthzAnswering) {
  const auto dir = testing::temp_dir("worst-case-optimize");
  auto store = open_sqlite_replication_store((dir / "r.sqlite").string());
  ASSERT_TRUE(store);
  ApiOptions api_options;
  api_options.rate_limit_per_minute = 0;
  Api api(testing::published_evidence(), **store, StaticFiles::placeholder("test"), api_options);
  HttpServer server(api.router(), HttpServerOptions{.threads = 2});
  auto port = server.bind("127.0.0.1", 0);
  ASSERT_TRUE(port);
  std::thread loop([&] { server.listen(); });

  // The largest grid one request may ask for: 16 precisions × 32 batches (512 configurations).
  std::string batches;
  for (int b = 1; b <= 32; ++b) batches += (batches.empty() ? "" : ",") + std::to_string(b);
  const std::string body = R"({"params_b":8,"gpu":"H200","precisions":["FP16","Q8_0","Q6_K","Q5_K_M","Q5_K_S","Q5_0",)"
                           R"("Q4_K_M","Q4_K_S","Q4_0","Q4_1","IQ4_NL","IQ4_XS","Q3_K_L","Q3_K_M","Q2_K","NF4"],"batches":[)" +
                           batches + R"(],"contexts":[2048]})";
  std::atomic<int> done{0};
  std::vector<std::future<int>> heavy;
  for (int i = 0; i < 8; ++i) {
    heavy.push_back(std::async(std::launch::async, [&] {
      auto answer = client_for(*port)->Post("/v1/optimize", body, "application/json");
      ++done;
      if (!answer) return -1;
      // A machine slow enough (a sanitizer build) to spend the request's CPU budget says so: 400.
      if (answer->status == 400 && answer->body.find("CPU budget") != std::string::npos) return 200;
      return answer->status;
    }));
  }
  int health_answers = 0;
  do {
    auto health = client_for(*port)->Get("/healthz");
    ASSERT_TRUE(health) << "no answer from /healthz with optimize requests in flight";
    EXPECT_EQ(health->status, 200);
    ++health_answers;
  } while (done.load() < 8 && health_answers < 1000);
  for (auto& f : heavy) {
    const int status = f.get();
    EXPECT_TRUE(status == 200 || status == 503) << status;
  }
  EXPECT_GE(health_answers, 1);
  server.stop();
  loop.join();
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ecocompute::server
