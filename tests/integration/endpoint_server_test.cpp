// Integration test of `measure-endpoint` against a real llama-server (built from the pinned llama.cpp
// by scripts/build_llama_server.sh) serving the trained fixture on the CPU: a 2-endpoint sweep over
// concurrency 1, 2, 4 with k = 2 and no energy source — tokens, latencies, protocol and report shape.
// The server is killed on every exit path: by the guard's destructor, and by the kernel
// (PR_SET_PDEATHSIG) if this test process dies first.
#define CPPHTTPLIB_OPENSSL_SUPPORT
#define CPPHTTPLIB_ZLIB_SUPPORT
#define CPPHTTPLIB_BROTLI_SUPPORT
#include <httplib.h>

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "report/energy_schema.hpp"
#include "support/fake_openai_server.hpp"
#include "support/free_port.hpp"
#include "support/scratch_dir.hpp"
#include "support/data_paths.hpp"

namespace {
namespace fs = std::filesystem;
using ecocompute::testing::slurp;

fs::path llama_server_binary() {
  if (const char* path = std::getenv("ECOCOMPUTE_LLAMA_SERVER"); path != nullptr && *path != '\0') return path;
  return fs::path(ECOCOMPUTE_SOURCE_DIR) / "third_party/llama-server/bin/llama-server";
}

using ecocompute::testing::free_port;

// llama-server as a child process; the destructor stops it (TERM, then KILL) and reaps it.
class ServerProcess {
 public:
  ServerProcess(const fs::path& binary, const fs::path& model, int port, const fs::path& log,
                const std::string& alias = "fixture-kjv") {
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // dies with the test process, whatever ends it
      const std::string port_text = std::to_string(port);
      const std::string log_text = log.string();
      if (std::freopen(log_text.c_str(), "w", stdout) == nullptr || std::freopen(log_text.c_str(), "a", stderr) == nullptr) {
        ::_exit(126);
      }
      ::execl(binary.c_str(), binary.c_str(), "-m", model.c_str(), "--host", "127.0.0.1", "--port", port_text.c_str(),
              "-t", "1", "-tb", "1", "-c", "1024", "--parallel", "4", "-ngl", "0", "--no-webui", "-a", alias.c_str(),
              "--metrics", static_cast<char*>(nullptr));
      ::_exit(127);
    }
  }
  ~ServerProcess() { stop(); }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  [[nodiscard]] bool started() const { return pid_ > 0; }
  // Returns whether the child has exited (reaping it).
  bool exited() {
    if (pid_ <= 0) return true;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return true;
    }
    return false;
  }
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 100; ++i) {
      if (exited()) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
};

class EndpointServerTest : public ecocompute::testing::ScratchDirTest {
 protected:
  // Waits up to 2 minutes for the server's /health; fails the test (naming its log) if it exits or never answers.
  void wait_healthy(ServerProcess& server, int port) const {
    httplib::Client health("127.0.0.1", port);
    health.set_connection_timeout(1, 0);
    bool ready = false;
    for (int i = 0; i < 600 && !ready; ++i) {
      ASSERT_FALSE(server.exited()) << "llama-server exited:\n" << slurp(dir_ / "llama-server.log");
      const auto response = health.Get("/health");
      ready = response && response->status == 200;
      if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    ASSERT_TRUE(ready) << "llama-server never became healthy:\n" << slurp(dir_ / "llama-server.log");
  }
  // Runs the binary with `args`, stdout and stderr to files in the scratch folder; returns the exit status.
  int ecocompute(const std::string& args) const {
    const std::string command = "'" + std::string(ECOCOMPUTE_BINARY) + "' " + args + " > '" +
                                (dir_ / "stdout").string() + "' 2> '" + (dir_ / "stderr").string() + "'";
    const int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
};

TEST_F(EndpointServerTest, SweepAgainstLlamaServerMeasuresTokensLatencyAndWritesServerReports) {
  const fs::path binary = llama_server_binary();
  // scripts/build.sh builds it, so a missing binary is a broken build, not a reason to skip.
  ASSERT_TRUE(fs::exists(binary)) << binary << " is missing: run scripts/build_llama_server.sh";
  const fs::path fixture = ecocompute::testing::kFixtureModel;
  const int port = free_port();
  ASSERT_GT(port, 0);
  ServerProcess server(binary, fixture, port, dir_ / "llama-server.log");
  ASSERT_TRUE(server.started());
  wait_healthy(server, port);
  if (HasFatalFailure()) return;

  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/v1#fixture-kjv";
  const fs::path out = dir_ / "out";
  const std::string command = "'" + std::string(ECOCOMPUTE_BINARY) + "' measure-endpoint --endpoint F16=" + url +
                              " --endpoint F16B=" + url +
                              " --concurrency 1,2,4 -k 2 --n-requests 8 --prompt-words 3-6 --output-tokens 96-128"
                              " --seed 11 --requests-per-stream 2 --warmup-requests 1 --no-energy --timeout 120"
                              " --server-occupancy --occupancy-interval 0.01 -o '" +
                              out.string() + "' > '" + (dir_ / "stdout").string() + "' 2> '" +
                              (dir_ / "stderr").string() + "'";
  const int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0) << slurp(dir_ / "stderr") << "\nserver log:\n" << slurp(dir_ / "llama-server.log");
  const std::string table = slurp(dir_ / "stdout");
  EXPECT_NE(table.find("| F16B | 4 | 2/2 |"), std::string::npos) << table;

  for (const char* label : {"F16", "F16B"}) {
    for (int c : {1, 2, 4}) {
      const fs::path path = out / ("energy-" + std::string(label) + "-c" + std::to_string(c) + ".json");
      ASSERT_TRUE(fs::exists(path)) << path;
      auto problems = ecocompute::report::validate_energy_file(path);
      ASSERT_TRUE(problems.has_value());
      EXPECT_TRUE(problems->empty()) << path << ": " << ecocompute::report::describe(*problems);
      const nlohmann::json report = nlohmann::json::parse(slurp(path));
      EXPECT_EQ(report["scenario"], "Server");
      EXPECT_EQ(report["workload"]["concurrency"], c);
      EXPECT_EQ(report["engine"]["name"], "openai-endpoint");
      EXPECT_EQ(report["results"]["basis"], "unavailable");
      EXPECT_TRUE(report["results"]["energy_per_token_mj"].is_null());
      EXPECT_EQ(report["statistics"]["n_trials"], 2);
      EXPECT_GT(report["results"]["tokens_generated"].get<long long>(), 0);
      EXPECT_GT(report["workload"]["prompt_tokens"].get<long long>(), 0);
      EXPECT_FALSE(report["workload"]["model_name"].get<std::string>().empty());
    }
  }

  const nlohmann::json sweep = nlohmann::json::parse(slurp(out / "sweep.json"));
  ASSERT_EQ(sweep["levels"].size(), 6u);
  double most_running = 0.0;
  int most_readings = 0;
  for (const auto& level : sweep["levels"]) {
    EXPECT_EQ(level["trials_ok"], 2) << level.dump();
    // Each trial sends max(8 requests, 2 × C): 8 at every level here, all of them answered.
    EXPECT_EQ(level["requests_ok"], 2 * 8) << level.dump();
    EXPECT_EQ(level["requests_failed"], 0) << level.dump();
    EXPECT_TRUE(level["failures"].empty()) << level.dump();
    EXPECT_GT(level["window_tokens"].get<long long>(), 0);
    // The whole run holds every token of every request (96 … 128 each); the window only part of them.
    EXPECT_GE(level["whole_run_tokens"].get<long long>(), 2 * 8 * 96);
    EXPECT_LE(level["whole_run_tokens"].get<long long>(), 2 * 8 * 128);
    EXPECT_LE(level["window_tokens"].get<long long>(), level["whole_run_tokens"].get<long long>());
    EXPECT_FALSE(level["ttft_s"]["p50"].is_null());
    EXPECT_FALSE(level["itl_s"]["p99"].is_null());
    EXPECT_TRUE(level["window_mj_per_token"].is_null());
    // llama-server (--metrics, 4 slots) said how many requests it was running through every trial.
    const auto& occupancy = level["server_occupancy"];
    ASSERT_TRUE(occupancy.is_object()) << level.dump();
    EXPECT_EQ(occupancy["trials_read"], 2) << occupancy.dump();
    most_readings = std::max(most_readings, occupancy["readings_in_window"].get<int>());
    EXPECT_TRUE(occupancy["unavailable"].is_null()) << occupancy.dump();
    ASSERT_TRUE(occupancy["mean_running_requests"].is_number()) << occupancy.dump();
    EXPECT_GE(occupancy["mean_running_requests"].get<double>(), 0.0);
    EXPECT_LE(occupancy["mean_running_requests"].get<double>(), 4.0);
    double shares = 0;
    for (const auto& [running, share] : occupancy["share_of_window_at"].items()) shares += share.get<double>();
    EXPECT_NEAR(shares, 1.0, 1e-9) << occupancy.dump();
    // No GPU counter on this machine: no energy to split by occupancy, and the reason says so.
    EXPECT_EQ(occupancy["energy_at"]["trials_split"], 0) << occupancy.dump();
    EXPECT_TRUE(occupancy["energy_at"]["running_requests"].empty()) << occupancy.dump();
    EXPECT_EQ(occupancy["energy_at"]["not_split"], "the trial's steady window has no energy") << occupancy.dump();
    most_running = std::max(most_running, occupancy["mean_running_requests"].get<double>());
  }
  // The fixture decodes thousands of tokens a second: a window lasts a fraction of a second, read
  // every 10 ms (at the default 0.2 s a window held zero or one reading, and the mean was luck).
  EXPECT_GE(most_readings, 3) << "no window held three readings";
  EXPECT_GT(most_running, 0.0) << "no level saw a running request";
  EXPECT_EQ(sweep["occupancy_interval_s"], 0.01);
  EXPECT_EQ(sweep["endpoints"][0]["baseline"], true);
  EXPECT_EQ(sweep["measurement_source"], "none");
  ASSERT_EQ(sweep["break_even"].size(), 1u);
  EXPECT_EQ(sweep["break_even"][0]["crosses"], false);

  server.stop();
}

// A model with random weights, as on the GPU campaign, emits byte fragments that are not valid UTF-8;
// llama-server's reply parser failed each such request with a 500 until our patch
// (scripts/patches/llama-server-malformed-utf8.diff). Every request must now be answered and counted.
TEST_F(EndpointServerTest, RandomWeightsServedByLlamaServerAnswerEveryRequest) {
  const fs::path binary = llama_server_binary();
  ASSERT_TRUE(fs::exists(binary)) << binary << " is missing: run scripts/build_llama_server.sh";
  const fs::path model = dir_ / "llama3-tiny.gguf";
  const std::string vocab = (fs::path(ECOCOMPUTE_SOURCE_DIR) / "third_party/llama.cpp/models").string();
  ASSERT_EQ(ecocompute("synth --arch llama3-tiny --type f16 --seed 3 --vocab-dir '" + vocab + "' -o '" +
                       model.string() + "'"),
            0)
      << slurp(dir_ / "stderr");
  const int port = free_port();
  ASSERT_GT(port, 0);
  ServerProcess server(binary, model, port, dir_ / "llama-server.log", "llama3-tiny");
  ASSERT_TRUE(server.started());
  wait_healthy(server, port);
  if (HasFatalFailure()) return;

  const fs::path out = dir_ / "out";
  const int status = ecocompute("measure-endpoint --endpoint F16=http://127.0.0.1:" + std::to_string(port) +
                                "/v1#llama3-tiny --concurrency 1,4 -k 1 --n-requests 16 --prompt-words 4-16"
                                " --output-tokens 48 --seed 5 --warmup-requests 0 --no-energy --timeout 120 -o '" +
                                out.string() + "'");
  ASSERT_EQ(status, 0) << slurp(dir_ / "stderr") << "\n" << slurp(dir_ / "stdout");
  const nlohmann::json sweep = nlohmann::json::parse(slurp(out / "sweep.json"));
  ASSERT_EQ(sweep["levels"].size(), 2u);
  for (const auto& level : sweep["levels"]) {
    EXPECT_EQ(level["requests_failed"], 0) << level.dump();
    EXPECT_EQ(level["requests_ok"], 16) << level.dump();
    // ignore_eos: every request yields its 48 tokens, counted from the server's usage.
    EXPECT_EQ(level["whole_run_tokens"], 16 * 48) << level.dump();
  }
  server.stop();
}

// Servers the level command started: stopped through their pid files however the test ends.
class PidFileServers {
 public:
  explicit PidFileServers(fs::path dir) : dir_(std::move(dir)) {}
  ~PidFileServers() {
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir_, ec)) {
      if (entry.path().extension() != ".pid") continue;
      const pid_t pid = static_cast<pid_t>(std::atol(slurp(entry.path()).c_str()));
      if (pid <= 0) continue;
      ::kill(pid, SIGTERM);
      for (int i = 0; i < 100 && ::kill(pid, 0) == 0; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
      ::kill(pid, SIGKILL);
    }
  }
  PidFileServers(const PidFileServers&) = delete;
  PidFileServers& operator=(const PidFileServers&) = delete;

 private:
  fs::path dir_;
};

// The GPU session's per-level servers (scripts/device/serve_level.sh as --level-cmd), here on the CPU:
// each level restarts both llama-servers with one slot per stream, and every trial is served.
TEST_F(EndpointServerTest, LevelCommandRestartsRealServersWithOneSlotPerStream) {
  const fs::path binary = llama_server_binary();
  ASSERT_TRUE(fs::exists(binary)) << binary << " is missing: run scripts/build_llama_server.sh";
  const fs::path fixture = ecocompute::testing::kFixtureModel;
  const int port_a = free_port();
  const int port_b = free_port();
  ASSERT_TRUE(port_a > 0 && port_b > 0 && port_a != port_b);
  const fs::path servers = dir_ / "servers";
  fs::create_directories(servers);
  PidFileServers cleanup(servers);
  // serve_level.sh reads these; the level command's shell inherits them through ecocompute.
  ::setenv("SERVE_DIR", servers.c_str(), 1);
  ::setenv("SERVE_GPU", "none", 1);
  ::setenv("SERVE_BIN", binary.c_str(), 1);
  const std::string specs = "A " + fixture.string() + " " + std::to_string(port_a) + ";B " + fixture.string() + " " +
                            std::to_string(port_b);
  ::setenv("SERVE_SPECS", specs.c_str(), 1);
  ::setenv("SERVE_ARGS", "-t 1 -tb 1 -ngl 0 --no-webui", 1);
  const std::string script = (fs::path(ECOCOMPUTE_SOURCE_DIR) / "scripts/device/serve_level.sh").string();
  const fs::path out = dir_ / "out";
  const int status = ecocompute(
      "measure-endpoint --endpoint A=http://127.0.0.1:" + std::to_string(port_a) + "/v1#A --endpoint B=http://127.0.0.1:" +
      std::to_string(port_b) + "/v1#B --concurrency 1,2 -k 2 --n-requests 4 --prompt-words 3-6 --output-tokens 32-48" +
      " --seed 11 --warmup-requests 1 --no-energy --timeout 120 --ready-timeout 120 --level-cmd 'bash " + script +
      " {concurrency}' -o '" + out.string() + "'");
  for (const char* name : {"SERVE_DIR", "SERVE_GPU", "SERVE_BIN", "SERVE_SPECS", "SERVE_ARGS"}) ::unsetenv(name);
  ASSERT_EQ(status, 0) << slurp(dir_ / "stderr") << "\nserver log:\n" << slurp(servers / "server-A.log");

  const nlohmann::json sweep = nlohmann::json::parse(slurp(out / "sweep.json"));
  EXPECT_EQ(sweep["order"], "level_by_level");
  ASSERT_EQ(sweep["levels"].size(), 4u);
  for (const auto& level : sweep["levels"]) {
    EXPECT_EQ(level["trials_ok"], 2) << level.dump();
    EXPECT_EQ(level["requests_failed"], 0) << level.dump();
  }
  // Each server was started twice, first with 1 slot and then with 2, and llama-server says so itself.
  for (const char* label : {"A", "B"}) {
    const std::string log = slurp(servers / (std::string("server-") + label + ".log"));
    const auto first = log.find("n_slots = 1,");
    const auto second = log.find("n_slots = 2,");
    ASSERT_NE(first, std::string::npos) << log;
    ASSERT_NE(second, std::string::npos) << log;
    EXPECT_LT(first, second);
    EXPECT_NE(log.find("=== serve_level.sh: 2 slots"), std::string::npos);
  }
}

}  // namespace

namespace {

// 16 tokens, 5 ms apart: the streams of a level overlap, so every level has a steady window.
ecocompute::testing::FakeReply overlapping_streams(const nlohmann::json&) {
  ecocompute::testing::FakeReply reply = ecocompute::testing::good_stream(16);
  reply.delay_between = std::chrono::milliseconds(5);
  return reply;
}

class EndpointCliTest : public ecocompute::testing::ScratchDirTest {
 protected:
  int run(const std::string& args) const {
    const std::string command = "'" + std::string(ECOCOMPUTE_BINARY) + "' measure-endpoint " + args + " -o '" +
                                (dir_ / "out").string() + "' > '" + (dir_ / "stdout").string() + "' 2> '" +
                                (dir_ / "stderr").string() + "'";
    const int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string err() const { return ecocompute::testing::slurp(dir_ / "stderr"); }
};

TEST_F(EndpointCliTest, BadFlagsAreUsageErrorsNamingTheInput) {
  EXPECT_EQ(run("--endpoint nonsense --no-energy"), 2);
  EXPECT_NE(err().find("--endpoint 'nonsense'"), std::string::npos) << err();
  EXPECT_EQ(run("--endpoint F16=http://127.0.0.1:1/v1#m --concurrency 0,4 --no-energy"), 2);
  EXPECT_NE(err().find("--concurrency: '0' is not a concurrency level from 1 to 4096"), std::string::npos) << err();
  EXPECT_EQ(run("--endpoint F16=http://127.0.0.1:1/v1#m --endpoint F16=http://127.0.0.1:2/v1#m --no-energy"), 2);
  EXPECT_NE(err().find("used twice"), std::string::npos) << err();
  EXPECT_EQ(run("--endpoint F16=http://127.0.0.1:1/v1#m --output-tokens 9-3 --no-energy"), 2);
  EXPECT_EQ(run("--endpoint F16=http://127.0.0.1:1/v1#m --seed -1 --no-energy"), 2);
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

TEST_F(EndpointCliTest, LevelCommandRunsOncePerLevelBeforeAllItsBlocksAndIsRecorded) {
  ecocompute::testing::FakeOpenAiServer server(overlapping_streams);
  const std::string url = server.base_url();
  const std::string levels = (dir_ / "levels.log").string();
  ASSERT_EQ(run("--endpoint F16=" + url + "#m --endpoint Q4=" + url + "#m --concurrency 1,2 -k 2 --n-requests 2 " +
                "--output-tokens 16 --no-energy --level-cmd 'echo {concurrency} >> " + levels + "'"),
            0)
      << err();
  EXPECT_EQ(slurp(dir_ / "levels.log"), "1\n2\n");
  // Level by level: the third trial is level 1's second block, not level 2's first; that block
  // reverses the endpoint order, so the candidate runs first.
  EXPECT_NE(err().find("[3/8] Q4 C=1 block 2"), std::string::npos) << err();
  const auto sweep = nlohmann::json::parse(slurp(dir_ / "out" / "sweep.json"));
  EXPECT_EQ(sweep["order"], "level_by_level");
  EXPECT_EQ(sweep["endpoint_order"], "alternating");
  EXPECT_EQ(sweep["level_warmup_trials"], 1);
  EXPECT_TRUE(sweep["sequential_rule"].is_null());
  // Each level command restarts the servers: both endpoints warm up once per level with one trial's
  // requests, max(2 in the set, 4 per stream × C).
  for (const auto& level : sweep["levels"]) {
    EXPECT_EQ(level["level_warmup_requests"], 4 * level["concurrency"].get<int>()) << level.dump();
    EXPECT_EQ(level["level_warmup_failed"], 0) << level.dump();
  }
  EXPECT_EQ(sweep["level_cmd"], "echo {concurrency} >> " + levels);
  EXPECT_TRUE(sweep["restart_cmd"].is_null());
  ASSERT_EQ(sweep["levels"].size(), 4u);
  for (const auto& level : sweep["levels"]) EXPECT_EQ(level["trials_ok"], 2) << level.dump();

  EXPECT_EQ(run("--endpoint F16=" + url + "#m --concurrency 1 --no-energy --level-cmd 'exit 3'"), 3);
  EXPECT_NE(err().find("switching to concurrency 1 failed: --level-cmd 'exit 3' exited with status"), std::string::npos)
      << err();
}

TEST_F(EndpointCliTest, LockstepNeedsOneOutputLengthAndIsRecorded) {
  ecocompute::testing::FakeOpenAiServer server(overlapping_streams);
  const std::string endpoint = "--endpoint F16=" + server.base_url() + "#m ";
  EXPECT_EQ(run(endpoint + "--lockstep --output-tokens 16-32 --no-energy"), 2);
  EXPECT_NE(err().find("--lockstep: the request set's max_tokens run from 16 to 32"), std::string::npos) << err();
  EXPECT_FALSE(fs::exists(dir_ / "out"));
  ASSERT_EQ(run(endpoint + "--lockstep --output-tokens 16 --concurrency 1,2 -k 1 --n-requests 4 --level-warmup 0 --no-energy"), 0)
      << err();
  const auto sweep = nlohmann::json::parse(slurp(dir_ / "out" / "sweep.json"));
  EXPECT_EQ(sweep["lockstep"], true);
  for (const auto& level : sweep["levels"]) EXPECT_EQ(level["trials_ok"], 1) << level.dump();
  // Without --server-occupancy nothing was read from the server.
  for (const auto& level : sweep["levels"]) EXPECT_TRUE(level["server_occupancy"].is_null()) << level.dump();
}

// 16 tokens, 100 ms apart: a trial of two requests at C = 1 lasts ~3.2 s.
ecocompute::testing::FakeReply slow_streams(const nlohmann::json&) {
  ecocompute::testing::FakeReply reply = ecocompute::testing::good_stream(16);
  reply.delay_between = std::chrono::milliseconds(100);
  return reply;
}

TEST_F(EndpointCliTest, ATermAfterATermIsOneStopRequestAndTheFinishedTrialsAreWritten) {
  // `timeout` sends its TERM to the process and again to its process group. On the H200 (2026-12-04)
  // the second copy came after the handler had run for the first, the sweep took it for a second
  // Ctrl-C, quit at once and lost every finished trial. Here the second TERM follows the acknowledged first.
  ecocompute::testing::FakeOpenAiServer server(slow_streams);
  const std::string command = "exec '" + std::string(ECOCOMPUTE_BINARY) + "' measure-endpoint --endpoint F16=" +
                              server.base_url() + "#m --endpoint Q4=" + server.base_url() +
                              "#m --concurrency 1 -k 3 --n-requests 2 --requests-per-stream 1 --output-tokens 16" +
                              " --warmup-requests 0 --level-warmup 0 --no-energy -o '" + (dir_ / "out").string() +
                              "' > /dev/null 2> '" + (dir_ / "stderr").string() + "'";
  const char* argv[] = {"/bin/sh", "-c", command.c_str(), nullptr};
  pid_t pid = -1;
  ASSERT_EQ(::posix_spawn(&pid, "/bin/sh", nullptr, nullptr, const_cast<char* const*>(argv), environ), 0);
  const auto wait_for_text = [&](const std::string& text) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::minutes(5);
    while (err().find(text) == std::string::npos && std::chrono::steady_clock::now() < until) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return err().find(text) != std::string::npos;
  };
  ASSERT_TRUE(wait_for_text("[2/6]")) << err();
  ASSERT_EQ(::kill(pid, SIGTERM), 0);
  ASSERT_TRUE(wait_for_text("interrupted: stopping")) << err();
  ::kill(pid, SIGTERM);  // may find the process gone already
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130) << err();
  EXPECT_EQ(err().find("interrupted again"), std::string::npos) << err();
  ASSERT_TRUE(fs::exists(dir_ / "out" / "sweep.json")) << err();
  const auto sweep = nlohmann::json::parse(slurp(dir_ / "out" / "sweep.json"));
  int trials_ok = 0;
  for (const auto& level : sweep["levels"]) trials_ok += level["trials_ok"].get<int>();
  EXPECT_GE(trials_ok, 2) << sweep["levels"].dump();
}

TEST_F(EndpointCliTest, TargetCiFlagsAreCheckedAndTheRuleIsRecordedPerLevel) {
  ecocompute::testing::FakeOpenAiServer server(overlapping_streams);
  const std::string url = server.base_url();
  const std::string two = "--endpoint F16=" + url + "#m --endpoint Q4=" + url + "#m ";
  EXPECT_EQ(run("--endpoint F16=" + url + "#m --target-ci 2 --no-energy"), 2);
  EXPECT_NE(err().find("--target-ci: one endpoint gives no paired ΔE"), std::string::npos) << err();
  EXPECT_EQ(run(two + "--target-ci 2 --min-trials 5 -k 4 --no-energy"), 2);
  EXPECT_NE(err().find("--min-trials: 5; with --target-ci it must be at least 2"), std::string::npos) << err();
  EXPECT_EQ(run(two + "--endpoint-order random --no-energy"), 2);
  EXPECT_FALSE(fs::exists(dir_ / "out"));

  // Without an energy source there is no ΔE to look at: every level runs all its blocks and says why.
  ASSERT_EQ(run(two + "--concurrency 1,2 -k 3 --min-trials 2 --target-ci 5 --n-requests 2 --output-tokens 16 "
                "--endpoint-order baseline-first --level-warmup 0 --no-energy"),
            0)
      << err();
  const auto sweep = nlohmann::json::parse(slurp(dir_ / "out" / "sweep.json"));
  EXPECT_EQ(sweep["endpoint_order"], "baseline_first");
  EXPECT_EQ(sweep["level_warmup_trials"], 0);
  const auto& rule = sweep["sequential_rule"];
  ASSERT_TRUE(rule.is_object()) << sweep.dump(2);
  EXPECT_EQ(rule["target_ci_pt"], 5.0);
  EXPECT_EQ(rule["min_trials"], 2);
  EXPECT_EQ(rule["max_trials"], 3);
  EXPECT_DOUBLE_EQ(rule["confidence_per_look"].get<double>(), 0.975);  // looks after blocks 2 and 3
  EXPECT_DOUBLE_EQ(sweep["confidence"].get<double>(), 0.975);
  ASSERT_EQ(rule["levels"].size(), 2u);
  for (const auto& level : rule["levels"]) {
    EXPECT_EQ(level["blocks_run"], 3) << level.dump();
    EXPECT_FALSE(level["reached"].get<bool>()) << level.dump();
    EXPECT_NE(level["status"].get<std::string>().find("Q4: 0 valid pair(s), a CI needs 2"), std::string::npos)
        << level.dump();
  }
  const std::string summary = slurp(dir_ / "out" / "sweep.md");
  EXPECT_NE(summary.find("up to 3 trials per level, endpoint order baseline_first; CIs 97.5 %"), std::string::npos)
      << summary;
  EXPECT_NE(summary.find("Sequential rule: up to 3 blocks per level"), std::string::npos) << summary;
  for (const auto& level : sweep["levels"]) EXPECT_EQ(level["level_warmup_requests"], 0) << level.dump();
}

TEST_F(EndpointCliTest, TheDeclaredServerEngineNamesTheReportsEngine) {
  ecocompute::testing::FakeOpenAiServer server(overlapping_streams);
  const std::string url = server.base_url();
  EXPECT_EQ(run("--endpoint F16=" + url + "#m --server-engine 'llama server' --no-energy"), 2);
  EXPECT_NE(err().find("--server-engine: 'llama server' is not a name"), std::string::npos) << err();
  ASSERT_EQ(run("--endpoint F16=" + url + "#m --endpoint Q4=" + url + "#m --concurrency 1 -k 1 --n-requests 2 " +
                "--output-tokens 16 --server-engine llama-server --no-energy"),
            0)
      << err();
  const auto report = nlohmann::json::parse(slurp(dir_ / "out" / "energy-Q4-c1.json"));
  EXPECT_EQ(report["engine"]["name"], "llama-server");
  EXPECT_NE(report["engine"]["backend"].get<std::string>().find("declared by --server-engine"), std::string::npos);
  ASSERT_EQ(run("--endpoint F16=" + url + "#m --concurrency 1 -k 1 --n-requests 2 --output-tokens 16 --no-energy"), 0)
      << err();
  EXPECT_EQ(nlohmann::json::parse(slurp(dir_ / "out" / "energy-F16-c1.json"))["engine"]["name"], "openai-endpoint");
}

TEST_F(EndpointCliTest, AnEndpointThatDoesNotAnswerIsAnEnvironmentError) {
  EXPECT_EQ(run("--endpoint F16=http://127.0.0.1:1/v1#m --no-energy"), 3);
  EXPECT_NE(err().find("endpoint F16 is not answering"), std::string::npos) << err();
  EXPECT_FALSE(fs::exists(dir_ / "out"));
}

}  // namespace
