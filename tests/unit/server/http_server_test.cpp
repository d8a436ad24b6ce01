// Tests of HttpServer with a real client on 127.0.0.1, port 0: the adapter carries requests, headers
// and bodies both ways, refuses oversized bodies before reading them, and stops gracefully.
#define CPPHTTPLIB_OPENSSL_SUPPORT
#define CPPHTTPLIB_ZLIB_SUPPORT
#define CPPHTTPLIB_BROTLI_SUPPORT
#include <httplib.h>

#include "server/http_adapter.hpp"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "raw_http_client.hpp"
#include "server/api.hpp"
#include "server/serve.hpp"
#include "server_test_support.hpp"

namespace ecocompute::server {
namespace {

class HttpServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::temp_dir(::testing::UnitTest::GetInstance()->current_test_info()->name());
    auto store = open_sqlite_replication_store((dir_ / "r.sqlite").string());
    ASSERT_TRUE(store);
    store_ = std::move(store).value();
    ApiOptions options;
    options.rate_limit_per_minute = 5;
    api_ = std::make_unique<Api>(testing::published_evidence(), *store_, StaticFiles::placeholder("test"), options);
    server_ = std::make_unique<HttpServer>(api_->router(), 4);
    auto port = server_->bind("127.0.0.1", 0);
    ASSERT_TRUE(port) << port.error().describe();
    port_ = *port;
    thread_ = std::thread([this] { server_->listen(); });
    client_ = std::make_unique<httplib::Client>("127.0.0.1", port_);
    client_->set_connection_timeout(5);
    client_->set_read_timeout(10);
  }
  void TearDown() override {
    if (server_) server_->stop();
    if (thread_.joinable()) thread_.join();
    std::filesystem::remove_all(dir_);
  }
  std::filesystem::path dir_;
  std::unique_ptr<ReplicationStore> store_;
  std::unique_ptr<Api> api_;
  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
  int port_ = 0;
  std::unique_ptr<httplib::Client> client_;
};

TEST_F(HttpServerTest, AnswersOverTheSocket) {
  EXPECT_GT(port_, 0);
  auto health = client_->Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(Json::parse(health->body)["status"], "ok");
  EXPECT_EQ(health->get_header_value("X-Content-Type-Options"), "nosniff");

  auto estimate = client_->Get("/v1/estimate?params_b=7&arch=ada&precision=NF4");
  ASSERT_TRUE(estimate);
  EXPECT_EQ(estimate->status, 200);
  EXPECT_EQ(estimate->get_header_value("Access-Control-Allow-Origin"), "*");
  EXPECT_EQ(estimate->get_header_value("Content-Type"), "application/json");
  EXPECT_EQ(Json::parse(estimate->body)["arch_used"], "ada");

  auto posted = client_->Post("/v1/estimate", R"({"params_b": 7, "arch": "ada"})", "application/json");
  ASSERT_TRUE(posted);
  EXPECT_EQ(posted->status, 200);

  auto bad = client_->Get("/v1/estimate?params_b=abc&arch=ada");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_TRUE(Json::parse(bad->body)["error"].is_string());
}

TEST_F(HttpServerTest, RefusesBodiesOverTheLimitWithJson413) {
  // 10 MB: over every route's limit; refused from Content-Length.
  auto big = client_->Post("/v1/replications", std::string(10 * 1024 * 1024, 'x'), "application/json");
  ASSERT_TRUE(big);
  EXPECT_EQ(big->status, 413);
  EXPECT_TRUE(Json::parse(big->body, nullptr, false).contains("error"));
  // 9 KiB on /v1/estimate: under the upload limit the library enforces, over the route's 8 KiB.
  auto medium = client_->Post("/v1/estimate", std::string(9 * 1024, ' '), "application/json");
  ASSERT_TRUE(medium);
  EXPECT_EQ(medium->status, 413);
  EXPECT_EQ(*store_->count({}), 0);
}

TEST_F(HttpServerTest, RateLimitAnswers429WithRetryAfter) {
  // 5 per minute; the two 413s above are in another test (another server). 5 pass, the 6th waits 12 s.
  for (int i = 0; i < 5; ++i) {
    auto r = client_->Get("/v1/architectures");
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200);
  }
  auto limited = client_->Get("/v1/architectures");
  ASSERT_TRUE(limited);
  EXPECT_EQ(limited->status, 429);
  // 60 s / 5 = 12 s per token; a little has refilled while the five ran, so 1..12 s remain.
  const int retry_after_s = std::stoi(limited->get_header_value("Retry-After"));
  EXPECT_GE(retry_after_s, 1);
  EXPECT_LE(retry_after_s, 12);
}

TEST_F(HttpServerTest, PathTraversalIs404) {
  for (const char* path : {"/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc%2fpasswd"}) {
    auto r = client_->Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 404) << path;
  }
}

TEST_F(HttpServerTest, StopEndsListenAndRefusesNewConnections) {
  server_->stop();
  thread_.join();
  EXPECT_FALSE(server_->is_running());
  httplib::Client late("127.0.0.1", port_);
  late.set_connection_timeout(2);
  EXPECT_FALSE(late.Get("/healthz"));
}

// A server of `threads` loops whose one route, GET /thread, answers the id of the thread that ran it;
// listening on a thread of its own from construction, stopped and joined at destruction.
struct ThreadServer {
  explicit ThreadServer(int threads) : server(router, threads) {
    router.add("GET", "/thread", [](const HttpRequest&) -> Result<HttpResponse> {
      std::ostringstream id;
      id << std::this_thread::get_id();
      return json_response(200, Json{{"thread", id.str()}}.dump());
    });
    auto bound = server.bind("127.0.0.1", 0);
    EXPECT_TRUE(bound) << bound.error().describe();
    port = bound.value_or(0);
    loop = std::thread([this] { server.listen(); });
  }
  ~ThreadServer() {
    server.stop();
    if (loop.joinable()) loop.join();
  }
  RateLimiter limiter{0};
  Router router{limiter};
  HttpServer server;
  int port = 0;
  std::thread loop;
};

// A loop a thread: with 4 threads, 8 connections accepted in turn are served by the 4 threads, two
// connections each, and every request of a connection by the same thread.
TEST(HttpServer, ConnectionsAreSharedOutAmongTheLoopsAndStayOnTheirs) {
  ThreadServer running(4);
  ASSERT_GT(running.port, 0);
  std::vector<std::unique_ptr<testing::RawConnection>> connections;
  for (int i = 0; i < 8; ++i) connections.push_back(std::make_unique<testing::RawConnection>(running.port));
  std::vector<std::set<std::string>> threads_of(connections.size());
  for (int round = 0; round < 3; ++round) {
    for (std::size_t i = 0; i < connections.size(); ++i) {
      ASSERT_TRUE(connections[i]->send("GET /thread HTTP/1.1\r\nHost: test\r\n\r\n"));
      const testing::RawResponse r = connections[i]->read_response(std::chrono::seconds(10));
      ASSERT_EQ(r.status, 200) << "connection " << i << " round " << round;
      threads_of[i].insert(Json::parse(r.body)["thread"].get<std::string>());
    }
  }
  std::map<std::string, int> connections_of_thread;
  for (const std::set<std::string>& threads : threads_of) {
    EXPECT_EQ(threads.size(), 1u);
    for (const std::string& t : threads) ++connections_of_thread[t];
  }
  EXPECT_EQ(connections_of_thread.size(), 4u);
  for (const auto& [thread, count] : connections_of_thread) EXPECT_EQ(count, 2) << thread;
  connections.clear();
  running.server.stop();
  running.loop.join();
  EXPECT_FALSE(running.server.is_running());
}

// Fewer than one thread asked for: one loop, which serves every connection.
TEST(HttpServer, NoThreadsAskedForIsOneLoop) {
  ThreadServer running(0);
  ASSERT_GT(running.port, 0);
  std::set<std::string> threads;
  for (int i = 0; i < 3; ++i) {
    testing::RawConnection connection(running.port);
    ASSERT_TRUE(connection.send("GET /thread HTTP/1.1\r\nHost: test\r\n\r\n"));
    const testing::RawResponse r = connection.read_response(std::chrono::seconds(10));
    ASSERT_EQ(r.status, 200) << "connection " << i;
    threads.insert(Json::parse(r.body)["thread"].get<std::string>());
  }
  EXPECT_EQ(threads.size(), 1u);
}

// `serve --threads`: a count asked for is kept; 0 (the default) is one loop per core of this machine.
TEST(HttpServer, ServeRunsTheLoopsAskedForOrOnePerCore) {
  EXPECT_EQ(loop_threads(3), 3);
  EXPECT_EQ(loop_threads(1), 1);
  EXPECT_EQ(ServeOptions{}.threads, 0);
  const unsigned cores = std::thread::hardware_concurrency();
  EXPECT_EQ(loop_threads(0), cores > 0 ? static_cast<int>(cores) : 1);
}

// stop() before listen(): listen returns at once and the port takes no connection that nothing would answer.
TEST(HttpServer, StoppedBeforeItListensItClosesItsSocket) {
  RateLimiter limiter(0);
  Router router(limiter);
  HttpServer server(router, 2);
  auto port = server.bind("127.0.0.1", 0);
  ASSERT_TRUE(port) << port.error().describe();
  server.stop();
  EXPECT_TRUE(server.listen());
  EXPECT_FALSE(server.is_running());
  // A listening socket completes the handshake before anything accepts: connect() itself must fail.
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(*port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_NE(::connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  ::close(fd);
}

TEST(HttpServer, BindingAnAddressNotOfThisMachineIsAnError) {
  RateLimiter limiter(0);
  Router router(limiter);
  HttpServer server(router);
  // 192.0.2.1 (TEST-NET-1) is assigned to no interface here: bind() fails, nothing is sent.
  auto foreign = server.bind("192.0.2.1", 0);
  ASSERT_FALSE(foreign);
  EXPECT_EQ(foreign.error().code(), ErrorCode::unavailable);
  EXPECT_EQ(server.bind("127.0.0.1", 70000).error().code(), ErrorCode::invalid_argument);
}

}  // namespace
}  // namespace ecocompute::server
