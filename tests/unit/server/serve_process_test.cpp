// Tests of the `ecocompute serve` process: graceful exit on SIGTERM, that kill -9 in the middle of
// a stream of uploads loses no upload that was answered 201, and the --allow-origin opt-in for uploads
// from the deployment's own site on another origin.
#define CPPHTTPLIB_OPENSSL_SUPPORT
#define CPPHTTPLIB_ZLIB_SUPPORT
#define CPPHTTPLIB_BROTLI_SUPPORT
#include <httplib.h>

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <optional>
#include <set>
#include <thread>

#include "raw_http_client.hpp"
#include "server_test_support.hpp"

namespace ecocompute::server {
namespace {
namespace fs = std::filesystem;

// A running `ecocompute serve` on port 0 with its own store.
class ServeProcess {
 public:
  ServeProcess(const fs::path& dir, const std::string& db, const std::vector<std::string>& extra_args = {}) {
    const fs::path port_file = dir / "port";
    fs::remove(port_file);
    std::vector<std::string> args{ECOCOMPUTE_BINARY, "--log-level", "warn", "serve", "--port", "0",
                                  "--port-file", port_file.string(), "--db", db, "--rate-limit", "0",
                                  "--store", (dir / "no-store.sqlite").string(),
                                  "--web-dir", (dir / "no-web").string()};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    // The fitted model is read from and kept in the ctest run's fit folder (tests/CMakeLists.txt), else
    // here, never in $HOME: fitted anew, the server listens only after the fit (a minute under ASan).
    ::setenv("ECOCOMPUTE_CACHE_DIR", (dir / "cache").c_str(), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      std::vector<char*> argv;
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    // Wait (bounded: 2 min) for the port file the server writes once it listens, or for the process to end.
    for (int i = 0; i < 2400 && port_ == 0; ++i) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
        pid_ = -1;
        break;
      }
      if (auto text = read_file(port_file); text && !text->empty()) port_ = std::stoi(*text);
      if (port_ == 0) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  ~ServeProcess() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  [[nodiscard]] int port() const { return port_; }
  /// The exit status if the process ended before it listened.
  [[nodiscard]] std::optional<int> exit_code() const { return exit_code_; }
  /// Sends `signal` and returns the exit status (or -signal if killed by one).
  int signal_and_wait(int signal) {
    ::kill(pid_, signal);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
  }

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  std::optional<int> exit_code_;
};

TEST(ServeProcess, SigtermStopsGracefullyWithExitZero) {
  const fs::path dir = testing::temp_dir("sigterm");
  ServeProcess server(dir, (dir / "r.sqlite").string());
  ASSERT_GT(server.port(), 0) << "server did not start";
  httplib::Client client("127.0.0.1", server.port());
  auto health = client.Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
  EXPECT_EQ(server.signal_and_wait(SIGTERM), 0);
  fs::remove_all(dir);
}

TEST(ServeProcess, KillNineLosesNoUploadAnswered201) {
  const fs::path dir = testing::temp_dir("kill9");
  const std::string db = (dir / "r.sqlite").string();
  std::set<std::int64_t> acknowledged;  // ids answered 201
  {
    ServeProcess server(dir, db);
    ASSERT_GT(server.port(), 0) << "server did not start";
    std::atomic<bool> stop{false};
    std::mutex mutex;
    std::thread uploader([&] {
      httplib::Client client("127.0.0.1", server.port());
      client.set_read_timeout(5);
      for (int i = 0; i < 2000 && !stop.load(); ++i) {
        OrderedJson report = testing::fixture_report();
        report["benchmark"] = "kill -9 upload " + std::to_string(i);
        auto r = client.Post("/v1/replications", report.dump(), "application/json");
        if (r && r->status == 201) {
          std::lock_guard lock(mutex);
          acknowledged.insert(Json::parse(r->body)["id"].get<std::int64_t>());
        }
      }
    });
    // Let uploads flow until 20 are acknowledged (bounded wait), then kill the server mid-stream.
    for (int i = 0; i < 600; ++i) {
      {
        std::lock_guard lock(mutex);
        if (acknowledged.size() >= 20) break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    EXPECT_EQ(server.signal_and_wait(SIGKILL), -SIGKILL);
    stop.store(true);
    uploader.join();
  }
  ASSERT_GE(acknowledged.size(), 20u);

  ServeProcess restarted(dir, db);
  ASSERT_GT(restarted.port(), 0) << "server did not restart on the same store";
  httplib::Client client("127.0.0.1", restarted.port());
  std::set<std::int64_t> stored;
  for (int offset = 0;; offset += 500) {
    auto page = client.Get(("/v1/replications?limit=500&offset=" + std::to_string(offset)).c_str());
    ASSERT_TRUE(page);
    ASSERT_EQ(page->status, 200);
    const Json body = Json::parse(page->body);
    for (const Json& r : body["replications"]) stored.insert(r["id"].get<std::int64_t>());
    if (body["replications"].size() < 500) break;
  }
  for (const std::int64_t id : acknowledged) EXPECT_TRUE(stored.contains(id)) << "lost upload " << id;
  EXPECT_GE(stored.size(), acknowledged.size());
  fs::remove_all(dir);
}

TEST(ServeProcess, AllowOriginOpensUploadsToThatOriginOnly) {
  const fs::path dir = testing::temp_dir("allow-origin");
  ServeProcess server(dir, (dir / "r.sqlite").string(), {"--allow-origin", "https://Example.org:443/"});
  ASSERT_GT(server.port(), 0) << "server did not start";
  const auto preflight = [&](const std::string& origin) {
    return testing::raw_exchange(server.port(), "OPTIONS /v1/replications HTTP/1.1\r\nHost: t\r\nOrigin: " + origin +
                                                    "\r\nAccess-Control-Request-Method: POST\r\n"
                                                    "Access-Control-Request-Headers: content-type\r\n\r\n");
  };
  const testing::RawResponse allowed = preflight("https://example.org");
  EXPECT_EQ(allowed.status, 204);
  EXPECT_EQ(allowed.header("access-control-allow-origin"), "https://example.org");
  EXPECT_NE(allowed.header("access-control-allow-methods").find("POST"), std::string::npos);
  EXPECT_NE(allowed.header("vary").find("Origin"), std::string::npos);
  for (const char* other : {"https://evil.example", "http://example.org", "https://example.org:8443", "null"}) {
    EXPECT_FALSE(preflight(other).has_header("access-control-allow-origin")) << other;
  }

  const std::string report = testing::fixture_report().dump();
  const testing::RawResponse upload = testing::raw_exchange(
      server.port(), "POST /v1/replications HTTP/1.1\r\nHost: t\r\nOrigin: https://example.org\r\n"
                     "Content-Type: application/json\r\nContent-Length: " +
                         std::to_string(report.size()) + "\r\n\r\n" + report);
  EXPECT_EQ(upload.status, 201) << upload.body;
  EXPECT_EQ(upload.header("access-control-allow-origin"), "https://example.org");
  EXPECT_EQ(server.signal_and_wait(SIGTERM), 0);
  fs::remove_all(dir);
}

TEST(ServeProcess, AllowOriginRefusesWhatIsNotAnOrigin) {
  const fs::path dir = testing::temp_dir("allow-origin-bad");
  for (const char* value : {"*", "example.org", "https://example.org/upload", "ftp://example.org"}) {
    ServeProcess server(dir, (dir / "r.sqlite").string(), {"--allow-origin", value});
    EXPECT_EQ(server.port(), 0) << value;
    ASSERT_TRUE(server.exit_code()) << value;
    EXPECT_NE(*server.exit_code(), 0) << value;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ecocompute::server
