// Does the endpoint client keep up with C concurrent streams on this machine's cores? A fake OpenAI
// server, in this same process, streams 64 one-token chunks per request; protocol::run_level keeps C
// requests in flight through the client (4 × C requests per level, no energy source).
//
// pace_ms > 0: the server writes one chunk every pace_ms, like a decoding server. A client that keeps
// up sees C × 1000 / pace_ms tokens/s in the steady-state window; window_vs_ideal is the verdict.
// pace_ms = 0: chunks as fast as a server thread writes them, the client's ceiling (with the server's
// work on the same cores). Requests then last milliseconds, so all C streams rarely produce at once
// and the steady window is expected not to open.
//
// CPU, in cores (CPU seconds per wall second): the whole process, and the server's threads measured
// apart, so the client's share is the difference (its worker threads exit before they can be read).
// Kernel time of loopback TCP is charged to whichever thread made the system call. Results:
// bench/RESULTS.md.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <utility>

#include "meter/rapl_meter.hpp"
#include "protocol/serving_level.hpp"
#include "support/fake_openai_server.hpp"

namespace {

using namespace ecocompute;

double process_cpu_s() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto s = [](const timeval& t) { return static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_usec); };
  return s(usage.ru_utime) + s(usage.ru_stime);
}

// Run time of the given threads of this process, from the scheduler (nanoseconds, unlike the 10 ms
// ticks of /proc/<tid>/stat).
double threads_cpu_s(const std::vector<std::string>& tids) {
  double ns_total = 0.0;
  for (const std::string& tid : tids) {
    std::ifstream in("/proc/self/task/" + tid + "/schedstat");
    double ns = 0.0;
    if (in >> ns) ns_total += ns;
  }
  return 1e-9 * ns_total;
}

// Every thread but the calling one: once the server has answered a request, its listener and pool.
std::vector<std::string> other_threads() {
  std::vector<std::string> tids;
  const std::string self = std::to_string(gettid());
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) {
    if (entry.path().filename() != self) tids.push_back(entry.path().filename().string());
  }
  return tids;
}

void BM_ClosedLoop(benchmark::State& state) {
  const int concurrency = static_cast<int>(state.range(0));
  const auto pace = std::chrono::milliseconds(state.range(1));
  const int chunks = 64;
  testing::FakeReply reply = testing::good_stream(chunks);
  // Usage and [DONE] in one write after the last token: 64 gaps of `pace` per request, so a stream
  // that keeps up yields 1000 / pace_ms tokens per second, request after request (less the server's
  // sleep overshoot).
  reply.events[reply.events.size() - 2] += reply.events.back();
  reply.events.pop_back();
  reply.delay_between = pace;
  // One server thread per stream, and a listen backlog for all C connecting at once: with httplib's
  // backlog of 5 the kernel drops and resets connects, and the bench would measure that instead.
  const auto room = static_cast<std::size_t>(concurrency) + 16;
  testing::FakeOpenAiServer server([&reply = std::as_const(reply)](const nlohmann::json&) { return reply; }, room,
                                   static_cast<int>(room));
  const engine::EndpointClient client(
      *engine::parse_endpoint_spec("F16=" + server.base_url() + "#fake-model"), {}, system_clock());
  if (!client.list_models()) state.SkipWithError("the fake server does not answer");
  const std::vector<std::string> server_threads = other_threads();
  const std::vector<engine::CompletionRequest> requests{{"a prompt", chunks}};
  meter::NullMeter meter("bench");
  double tokens = 0.0, seconds = 0.0, window_tokens = 0.0, window_seconds = 0.0;
  double wall_s = 0.0, process_s = 0.0, server_s = 0.0, request_s = 0.0;
  std::int64_t failed = 0, windows = 0, ok = 0;
  for (auto _ : state) {
    const auto wall0 = std::chrono::steady_clock::now();
    const double process0 = process_cpu_s(), server0 = threads_cpu_s(server_threads);
    const protocol::LevelRun run =
        protocol::run_level(client, requests, concurrency, 4 * concurrency, meter, *system_clock(), nullptr);
    process_s += process_cpu_s() - process0;
    server_s += threads_cpu_s(server_threads) - server0;
    wall_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    tokens += run.whole.tokens;
    seconds += run.whole.duration().value;
    if (run.failed_requests() > 0 && failed == 0) state.SetLabel("first failure: " + run.first_request_failure());
    failed += run.failed_requests();
    for (const engine::RequestRecord& r : run.records) {
      if (!r.ok) continue;
      ++ok;
      request_s += r.finished.value - r.sent.value;
    }
    if (run.steady.usable()) {
      ++windows;
      window_tokens += run.steady.tokens;
      window_seconds += run.steady.duration().value;
    }
  }
  state.counters["tokens_per_s"] = tokens / seconds;
  state.counters["window_tokens_per_s"] = window_seconds > 0 ? window_tokens / window_seconds : 0.0;
  if (pace.count() > 0) {
    const double ideal = concurrency * 1000.0 / static_cast<double>(pace.count());
    state.counters["paced_ideal_tokens_per_s"] = ideal;
    state.counters["window_vs_ideal"] = window_seconds > 0 ? window_tokens / window_seconds / ideal : 0.0;
  }
  // Paced, a request takes 64 × pace_ms plus the server's sleep overshoot; a client that fell behind
  // its streams would stretch this as C grows.
  state.counters["request_ms"] = ok > 0 ? 1e3 * request_s / static_cast<double>(ok) : 0.0;
  state.counters["steady_windows"] = static_cast<double>(windows);
  state.counters["failed_requests"] = static_cast<double>(failed);
  state.counters["cpu_process_cores"] = process_s / wall_s;
  state.counters["cpu_server_cores"] = server_s / wall_s;
  state.counters["cpu_client_cores"] = (process_s - server_s) / wall_s;
}
BENCHMARK(BM_ClosedLoop)
    ->ArgNames({"C", "pace_ms"})
    ->Args({16, 20})
    ->Args({64, 20})
    ->Args({256, 20})
    ->Args({16, 0})
    ->Args({256, 0})
    ->Iterations(3)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
