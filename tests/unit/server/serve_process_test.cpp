// Tests of the `ecocompute serve` process: graceful exit on SIGTERM, and that kill -9 in the middle of
// a stream of uploads loses no upload that was answered 201.
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
#include <set>
#include <thread>

#include "server_test_support.hpp"

namespace ecocompute::server {
namespace {
namespace fs = std::filesystem;

// A running `ecocompute serve` on port 0 with its own store.
class ServeProcess {
 public:
  ServeProcess(const fs::path& dir, const std::string& db) {
    const fs::path port_file = dir / "port";
    fs::remove(port_file);
    const std::vector<std::string> args{ECOCOMPUTE_BINARY, "--log-level", "warn", "serve", "--port", "0",
                                        "--port-file", port_file.string(), "--db", db, "--rate-limit", "0",
                                        "--curves", "published", "--store", (dir / "no-store.sqlite").string(),
                                        "--web-dir", (dir / "no-web").string()};
    pid_ = ::fork();
    if (pid_ == 0) {
      std::vector<char*> argv;
      for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    // Wait (bounded) for the port file the server writes once it listens.
    for (int i = 0; i < 300 && port_ == 0; ++i) {
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

}  // namespace
}  // namespace ecocompute::server
