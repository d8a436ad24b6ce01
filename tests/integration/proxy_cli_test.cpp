// `ecocompute proxy` as users run it: in front of a real llama-server (built by
// scripts/build_llama_server.sh, the trained fixture on the CPU), with the GPU counter from the fake
// NVML on the real clock; and its refusals of bad flags. Children die with the test (PR_SET_PDEATHSIG).
#define CPPHTTPLIB_OPENSSL_SUPPORT
#define CPPHTTPLIB_ZLIB_SUPPORT
#define CPPHTTPLIB_BROTLI_SUPPORT
#include <httplib.h>

#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"
#include "support/data_paths.hpp"
#include "support/free_port.hpp"
#include "support/prometheus_text.hpp"
#include "support/scratch_dir.hpp"

namespace {
namespace fs = std::filesystem;
using ecocompute::testing::slurp;
constexpr const char* kGpu = "GPU-7a1e0000-0000-4000-8000-0000000c11e0";

// A child process (argv, extra environment, output to `log`); stopped with TERM, then KILL.
class Child {
 public:
  Child(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env, const fs::path& log) {
    pid_ = ::fork();
    if (pid_ != 0) return;
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    for (const auto& [name, value] : env) ::setenv(name.c_str(), value.c_str(), 1);
    if (std::freopen(log.c_str(), "w", stdout) == nullptr || std::freopen(log.c_str(), "a", stderr) == nullptr) ::_exit(126);
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ~Child() { stop(); }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  bool exited() {
    if (pid_ <= 0) return true;
    if (::waitpid(pid_, nullptr, WNOHANG) == pid_) pid_ = -1;
    return pid_ <= 0;
  }
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGTERM);
    for (int i = 0; i < 100 && !exited(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    if (pid_ > 0) ::kill(pid_, SIGKILL), ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }

 private:
  pid_t pid_ = -1;
};

using ecocompute::testing::free_port;

class ProxyCliTest : public ecocompute::testing::ScratchDirTest {
 protected:
  // Waits (bounded) for a port file a child writes once it listens; 0 when it never does.
  int wait_port(Child& child, const fs::path& port_file, const fs::path& log) {
    for (int i = 0; i < 1200; ++i) {
      if (child.exited()) {
        ADD_FAILURE() << "exited:\n" << slurp(log);
        return 0;
      }
      const int port = std::atoi(slurp(port_file).c_str());
      if (port > 0) return port;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ADD_FAILURE() << "never listened:\n" << slurp(log);
    return 0;
  }
};

TEST_F(ProxyCliTest, ABadUpstreamIsExit2NamingIt) {
  for (const char* bad : {"localhost:8080", "http://host:99999", "ftp://x/"}) {
    const auto run = ecocompute::testing::run_ecocompute("", std::string("proxy --upstream '") + bad + "'", dir_);
    EXPECT_EQ(run.status, 2) << run.err;
    EXPECT_NE(run.err.find(std::string("--upstream '") + bad + "'"), std::string::npos) << run.err;
  }
  const auto listen = ecocompute::testing::run_ecocompute("", "proxy --upstream http://127.0.0.1:1 --listen nowhere", dir_);
  EXPECT_EQ(listen.status, 2) << listen.err;
  EXPECT_NE(listen.err.find("--listen 'nowhere'"), std::string::npos) << listen.err;
}

TEST_F(ProxyCliTest, NoReadableGpuIsExit3) {
  const auto run = ecocompute::testing::run_ecocompute("ECOCOMPUTE_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1",
                                                       "proxy --upstream http://127.0.0.1:1", dir_);
  EXPECT_EQ(run.status, 3) << run.err;
}

// Parses the data events of an SSE body, up to [DONE].
std::vector<nlohmann::json> events_of(const std::string& body) {
  std::vector<nlohmann::json> events;
  std::size_t begin = 0;
  for (std::size_t end = body.find("\n\n"); end != std::string::npos; begin = end + 2, end = body.find("\n\n", begin)) {
    const std::string event = body.substr(begin, end - begin);
    if (!event.starts_with("data: ") || event == "data: [DONE]") continue;
    events.push_back(nlohmann::json::parse(event.substr(6)));
  }
  return events;
}

std::string content_of(const std::vector<nlohmann::json>& events) {
  std::string text;
  for (const auto& event : events) {
    for (const auto& choice : event.value("choices", nlohmann::json::array())) text += choice.value("text", "");
  }
  return text;
}

TEST_F(ProxyCliTest, LlamaServerBehindTheProxyAnswersWithEnergy) {
  const fs::path server_binary = fs::path(ECOCOMPUTE_SOURCE_DIR) / "third_party/llama-server/bin/llama-server";
  ASSERT_TRUE(fs::exists(server_binary)) << server_binary << " is missing: run scripts/build_llama_server.sh";
  const fs::path script = dir_ / "nvml.json";
  std::ofstream(script) << R"({"clock": "real", "devices": [{"name": "NVIDIA H200", "uuid": ")" << kGpu
                        << R"(", "power": {"kind": "constant", "watts": 250}, "counter_update_period_s": 0.05}]})";
  const int server_port = free_port();
  ASSERT_GT(server_port, 0);
  Child server({server_binary.string(), "-m", ecocompute::testing::kFixtureModel.string(), "--host", "127.0.0.1", "--port",
                std::to_string(server_port), "-t", "1", "-c", "1024", "--parallel", "2", "-ngl", "0", "--no-webui", "-a",
                "fixture-kjv"},
               {}, dir_ / "llama-server.log");
  httplib::Client health("127.0.0.1", server_port);
  health.set_connection_timeout(1, 0);
  bool ready = false;
  for (int i = 0; i < 600 && !ready && !server.exited(); ++i) {
    const auto response = health.Get("/health");
    ready = response && response->status == 200;
    if (!ready) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_TRUE(ready) << slurp(dir_ / "llama-server.log");
  const std::string upstream = "http://127.0.0.1:" + std::to_string(server_port);
  Child proxy({ECOCOMPUTE_BINARY, "proxy", "--upstream", upstream, "--listen", "127.0.0.1:0", "--gpus", kGpu, "--port-file",
               (dir_ / "port").string()},
              {{"ECOCOMPUTE_NVML_LIBRARY", FAKE_NVML_PATH}, {"FAKE_NVML_SCRIPT", script.string()}}, dir_ / "proxy.log");
  const int proxy_port = wait_port(proxy, dir_ / "port", dir_ / "proxy.log");
  ASSERT_GT(proxy_port, 0);
  httplib::Client via_proxy("127.0.0.1", proxy_port), direct("127.0.0.1", server_port);
  for (httplib::Client* c : {&via_proxy, &direct}) c->set_read_timeout(120, 0);

  const std::string chat = R"({"model":"fixture-kjv","messages":[{"role":"user","content":"In the beginning"}],"max_tokens":8,"temperature":0})";
  auto answer = via_proxy.Post("/v1/chat/completions", chat, "application/json");
  ASSERT_TRUE(answer);
  ASSERT_EQ(answer->status, 200) << answer->body << slurp(dir_ / "proxy.log");
  const nlohmann::json body = nlohmann::json::parse(answer->body);
  EXPECT_GT(body["usage"]["prompt_tokens"].get<int>(), 0);
  EXPECT_GT(body["usage"]["energy_j"].get<double>(), 0.0);
  EXPECT_EQ(body["usage"]["energy_basis"], "attributed");
  EXPECT_TRUE(answer->has_header("X-Energy-J"));

  const std::string completion = R"({"model":"fixture-kjv","prompt":"And God said","max_tokens":12,"temperature":0,"seed":1,"stream":true})";
  auto streamed = via_proxy.Post("/v1/completions", completion, "application/json");
  auto reference = direct.Post("/v1/completions", completion, "application/json");
  ASSERT_TRUE(streamed && reference);
  ASSERT_EQ(streamed->status, 200);
  auto proxied = events_of(streamed->body);
  const auto original = events_of(reference->body);
  ASSERT_FALSE(proxied.empty());
  nlohmann::json& last = proxied.back();
  EXPECT_GT(last["usage"]["energy_j"].get<double>(), 0.0) << last.dump();
  for (const char* key : {"energy_j", "energy_j_per_output_token", "energy_j_per_total_token", "energy_estimated_j", "energy_basis"}) {
    last["usage"].erase(key);
  }
  if (last["choices"].empty() && last["usage"].empty()) proxied.pop_back();  // the chunk the proxy added
  EXPECT_EQ(proxied.size(), original.size()) << streamed->body << "\n---\n" << reference->body;
  EXPECT_EQ(content_of(proxied), content_of(original));
  ASSERT_TRUE(streamed->body.ends_with("data: [DONE]\n\n"));

  // Every interval booked once the requests ended; the exposition parses and conserves the counter.
  ecocompute::testing::PrometheusText metrics;
  for (int i = 0; i < 300; ++i) {
    metrics = ecocompute::testing::parse_prometheus_text(via_proxy.Get("/metrics")->body);
    if (metrics.sum("ecocompute_proxy_request_energy_joules_count") >= 2.0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(metrics.problems.empty()) << metrics.problems.front();
  EXPECT_EQ(metrics.sum("ecocompute_proxy_request_energy_joules_count", "model=\"fixture-kjv\""), 2.0);
  EXPECT_GT(metrics.sum("ecocompute_proxy_attributed_energy_joules_total", "model=\"fixture-kjv\""), 0.0);
  const double counter = metrics.sum("ecocompute_proxy_counter_energy_joules_total");
  EXPECT_NEAR(metrics.sum("ecocompute_proxy_attributed_energy_joules_total") + metrics.sum("ecocompute_proxy_idle_energy_joules_total") +
                  metrics.sum("ecocompute_proxy_unsettled_energy_joules"),
              counter, 1e-3 * counter);
  EXPECT_EQ(via_proxy.Get("/health")->status, 200);  // other paths pass through
  proxy.stop();
  server.stop();
}

}  // namespace
