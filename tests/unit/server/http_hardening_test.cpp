// Tests of what outside callers found over a real socket: invalid bytes answered 400 (never 500),
// bodiless POSTs and other methods refused at once, writes closed to other origins and to other
// media types, and keep-alive or slow-header clients that cannot starve the others. Each client
// waits at most 1 s where the old server made it wait 5 s or more.
#include "server/http_adapter.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <thread>
#include <vector>

#include "raw_http_client.hpp"
#include "server/api.hpp"
#include "server_test_support.hpp"

namespace ecocompute::server {
namespace {
using namespace std::chrono_literals;
using testing::RawConnection;
using testing::RawResponse;
using testing::raw_exchange;

class HttpHardeningTest : public ::testing::Test {
 protected:
  void start(int threads) {
    dir_ = testing::temp_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    auto store = open_sqlite_replication_store((dir_ / "r.sqlite").string());
    ASSERT_TRUE(store);
    store_ = std::move(store).value();
    ApiOptions options;
    options.rate_limit_per_minute = 0;
    api_ = std::make_unique<Api>(testing::published_evidence(), *store_, StaticFiles::placeholder("test"), options);
    server_ = std::make_unique<HttpServer>(api_->router(), threads);
    auto port = server_->bind("127.0.0.1", 0);
    ASSERT_TRUE(port) << port.error().describe();
    port_ = *port;
    thread_ = std::thread([this] { server_->listen(); });
  }
  void SetUp() override { start(4); }
  void TearDown() override {
    if (server_) server_->stop();
    if (thread_.joinable()) thread_.join();
    std::filesystem::remove_all(dir_);
  }
  void restart(int threads) {
    TearDown();
    server_.reset();
    api_.reset();
    store_.reset();
    start(threads);
  }

  // A request with a body and its Content-Length.
  static std::string with_body(const std::string& head, const std::string& body) {
    return head + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
  }
  static bool is_json_error(const RawResponse& r) {
    const Json body = Json::parse(r.body, nullptr, false);
    return !body.is_discarded() && body.contains("error") && body["error"].is_string();
  }

  std::filesystem::path dir_;
  std::unique_ptr<ReplicationStore> store_;
  std::unique_ptr<Api> api_;
  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
  int port_ = 0;
};

TEST_F(HttpHardeningTest, InvalidUtf8InTheUrlIs400WithJson) {
  for (const char* target : {"/v1/estimate?params_b=7&arch=%ff", "/%ff", "/v1/estimate?%ff=1",
                             "/v1/estimate?params_b=7&arch=%c0%af", "/v1/estimate?params_b=7&arch=%ed%a0%80",
                             "/v1/estimate?params_b=7&arch=a%00b", "/v1/estimate?params_b=7&arch=\xff",
                             "/v1/replications?arch=%fe", "/v1/check?arch=%ff"}) {
    const RawResponse r = raw_exchange(port_, std::string("GET ") + target + " HTTP/1.1\r\nHost: t\r\n\r\n");
    EXPECT_EQ(r.status, 400) << target;
    EXPECT_TRUE(is_json_error(r)) << target << ": " << r.body;
  }
  // Valid UTF-8 that is not a known architecture stays the route's own 400 naming it.
  const RawResponse named = raw_exchange(port_, "GET /v1/estimate?params_b=7&arch=%c3%a9t%c3%a9 HTTP/1.1\r\nHost: t\r\n\r\n");
  EXPECT_EQ(named.status, 400);
  EXPECT_NE(named.body.find("\xc3\xa9t\xc3\xa9"), std::string::npos) << named.body;
}

TEST_F(HttpHardeningTest, InvalidBytesInHeadersAndBodiesAre400WithJson) {
  const RawResponse header = raw_exchange(port_, "GET /healthz HTTP/1.1\r\nHost: t\r\nX-Note: caf\xe9\r\n\r\n");
  EXPECT_EQ(header.status, 400);
  EXPECT_TRUE(is_json_error(header)) << header.body;

  const std::string bad_body = "{\"params_b\": 7, \"arch\": \"\xff\xfe\"}";
  for (const char* path : {"/v1/estimate", "/v1/optimize", "/v1/check", "/v1/replications"}) {
    const RawResponse r = raw_exchange(
        port_, with_body(std::string("POST ") + path + " HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n", bad_body));
    EXPECT_EQ(r.status, 400) << path;
    EXPECT_TRUE(is_json_error(r)) << path << ": " << r.body;
  }
  EXPECT_EQ(*store_->count({}), 0);
}

TEST_F(HttpHardeningTest, BodilessPostIs411AtOnce) {
  for (const char* path : {"/v1/estimate", "/v1/optimize", "/v1/check", "/v1/replications"}) {
    const RawResponse r = raw_exchange(port_, std::string("POST ") + path + " HTTP/1.1\r\nHost: t\r\n\r\n");
    EXPECT_EQ(r.status, 411) << path;
    EXPECT_TRUE(is_json_error(r)) << path << ": " << r.body;
  }
  // An empty body that says so is read as empty: the route answers what is missing.
  const RawResponse empty = raw_exchange(port_, "POST /v1/estimate HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n");
  EXPECT_EQ(empty.status, 400);
  EXPECT_TRUE(is_json_error(empty)) << empty.body;
}

TEST_F(HttpHardeningTest, OtherMethodsAre405WithAllowAtOnce) {
  for (const char* method : {"PUT", "PATCH", "DELETE"}) {
    const RawResponse r = raw_exchange(port_, std::string(method) + " /v1/estimate HTTP/1.1\r\nHost: t\r\n\r\n");
    EXPECT_EQ(r.status, 405) << method;
    EXPECT_TRUE(is_json_error(r)) << method;
    EXPECT_NE(r.header("allow").find("GET"), std::string::npos) << method << ": " << r.header("allow");
    EXPECT_NE(r.header("allow").find("POST"), std::string::npos) << method << ": " << r.header("allow");
  }
  const RawResponse health = raw_exchange(port_, "DELETE /healthz HTTP/1.1\r\nHost: t\r\n\r\n");
  EXPECT_EQ(health.status, 405);
  EXPECT_NE(health.header("allow").find("GET"), std::string::npos);
  EXPECT_EQ(health.header("allow").find("POST"), std::string::npos);
  // With a body too; and a path that does not exist stays 404.
  EXPECT_EQ(raw_exchange(port_, with_body("PUT /v1/replications HTTP/1.1\r\nHost: t\r\n", "{}")).status, 405);
  EXPECT_EQ(raw_exchange(port_, "PUT /v1/nothing-here HTTP/1.1\r\nHost: t\r\n\r\n").status, 404);
  EXPECT_EQ(raw_exchange(port_, "DELETE /nothing.html HTTP/1.1\r\nHost: t\r\n\r\n").status, 404);
}

TEST_F(HttpHardeningTest, StoringNeedsJsonContentType) {
  const std::string report = testing::fixture_report().dump();
  for (const char* type : {"Content-Type: text/plain\r\n", "Content-Type: application/x-www-form-urlencoded\r\n",
                           "Content-Type: multipart/form-data; boundary=x\r\n", ""}) {
    const RawResponse r = raw_exchange(port_, with_body(std::string("POST /v1/replications HTTP/1.1\r\nHost: t\r\n") + type, report));
    EXPECT_EQ(r.status, 415) << type;
    EXPECT_TRUE(is_json_error(r)) << type;
  }
  EXPECT_EQ(*store_->count({}), 0);
  const RawResponse json = raw_exchange(
      port_, with_body("POST /v1/replications HTTP/1.1\r\nHost: t\r\nContent-Type: Application/JSON; charset=utf-8\r\n", report));
  EXPECT_EQ(json.status, 201) << json.body;
  EXPECT_EQ(*store_->count({}), 1);
}

TEST_F(HttpHardeningTest, WritesAreClosedToOtherOriginsAndReadsStayOpen) {
  const std::string evil = "Origin: https://evil.example\r\n";
  const RawResponse write_preflight = raw_exchange(
      port_, "OPTIONS /v1/replications HTTP/1.1\r\nHost: t\r\n" + evil +
                 "Access-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type\r\n\r\n");
  EXPECT_NE(write_preflight.status, 0);
  EXPECT_FALSE(write_preflight.has_header("access-control-allow-origin")) << write_preflight.header("access-control-allow-origin");
  EXPECT_EQ(write_preflight.header("access-control-allow-methods").find("POST"), std::string::npos);

  const RawResponse upload = raw_exchange(
      port_, with_body("POST /v1/replications HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n" + evil,
                       testing::fixture_report().dump()));
  EXPECT_EQ(upload.status, 201);
  EXPECT_FALSE(upload.has_header("access-control-allow-origin"));

  // Reads and computations that store nothing stay open to any origin.
  for (const char* path : {"/v1/estimate", "/v1/optimize", "/v1/check"}) {
    const RawResponse preflight = raw_exchange(
        port_, std::string("OPTIONS ") + path + " HTTP/1.1\r\nHost: t\r\n" + evil +
                   "Access-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: content-type\r\n\r\n");
    EXPECT_EQ(preflight.status, 204) << path;
    EXPECT_EQ(preflight.header("access-control-allow-origin"), "*") << path;
    EXPECT_NE(preflight.header("access-control-allow-methods").find("POST"), std::string::npos) << path;
  }
  const RawResponse list = raw_exchange(port_, "GET /v1/replications HTTP/1.1\r\nHost: t\r\n" + evil + "\r\n");
  EXPECT_EQ(list.status, 200);
  EXPECT_EQ(list.header("access-control-allow-origin"), "*");
  const RawResponse list_preflight = raw_exchange(
      port_, "OPTIONS /v1/replications HTTP/1.1\r\nHost: t\r\n" + evil + "Access-Control-Request-Method: GET\r\n\r\n");
  EXPECT_EQ(list_preflight.status, 204);
  EXPECT_EQ(list_preflight.header("access-control-allow-origin"), "*");
}

TEST_F(HttpHardeningTest, KeepAliveAndSlowHeaderClientsDoNotStarveOthers) {
  restart(2);  // fewer workers than clients
  // Slow clients that never finish their header, and keep-alive clients that stay connected.
  std::vector<std::unique_ptr<RawConnection>> slow;
  for (int i = 0; i < 4; ++i) {
    slow.push_back(std::make_unique<RawConnection>(port_));
    ASSERT_TRUE(slow.back()->send("GET /healthz HTTP/1.1\r\nHost: t\r\nX-Slow: 1\r\n"));
  }
  std::vector<std::unique_ptr<RawConnection>> kept;
  for (int i = 0; i < 8; ++i) {
    kept.push_back(std::make_unique<RawConnection>(port_));
    ASSERT_TRUE(kept.back()->send("GET /v1/estimate?params_b=7&arch=ada HTTP/1.1\r\nHost: t\r\n\r\n"));
    EXPECT_EQ(kept.back()->read_response(1000ms).status, 200) << "keep-alive client " << i << " starved";
  }
  const RawResponse health = raw_exchange(port_, "GET /healthz HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(health.status, 200) << "/healthz starved";
  // The kept connections still answer their next request.
  for (auto& connection : kept) {
    ASSERT_TRUE(connection->send("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"));
    EXPECT_EQ(connection->read_response(1000ms).status, 200);
  }
}

TEST_F(HttpHardeningTest, HeaderThatNeverEndsIsCutOff) {
  // One header line every 250 ms keeps a per-read timeout from ever firing; the header deadline
  // (5 s from the first byte) closes the connection anyway.
  RawConnection slow(port_);
  ASSERT_TRUE(slow.send("GET /healthz HTTP/1.1\r\nHost: t\r\n"));
  bool cut_off = false;
  for (int line = 0; line < 60 && !cut_off; ++line) {
    if (!slow.send("X-Line-" + std::to_string(line) + ": still coming\r\n")) {
      cut_off = true;
      break;
    }
    cut_off = slow.wait_closed(250ms);
  }
  EXPECT_TRUE(cut_off) << "a header sent for 15 s was still being read";
}

}  // namespace
}  // namespace ecocompute::server
