// What does `ecocompute proxy` cost a server's clients? A fast fake OpenAI server on loopback streams
// 64 chunks per request, one every pace_ms (a decoding server's rhythm); the endpoint client keeps C
// streams in flight for 4 C requests (protocol::run_level), once straight at the server and once through the proxy (in
// this process, with its counter poller on the fake NVML, or on the driver's NVML when the fake is not
// there), four times each, the two paths taking turns to go first. Reported: request latency (written →
// last byte) p50 and p99 per path, its parts before the first text chunk and after the last, the
// proxy's added p50 in %, and the throughput ratio proxy/direct over the whole runs and inside their steady
// windows, at C = 256 and 16.
// Everything shares this machine's cores (server, proxy, client). Results: bench/RESULTS.md.
#include <benchmark/benchmark.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <thread>

#include "meter/rapl_meter.hpp"
#include "protocol/serving_level.hpp"
#include "protocol/serving_statistics.hpp"
#include "proxy/gpu_energy_counter.hpp"
#include "proxy/proxy_server.hpp"
#include "support/fake_openai_server.hpp"

namespace {

using namespace ecocompute;

struct PathFigures {
  std::vector<double> latencies_s;
  std::vector<double> first_chunk_s;  // written → first text chunk
  std::vector<double> last_gap_s;     // last text chunk → last byte (the usage chunk and [DONE])
  double tokens = 0.0;
  double seconds = 0.0;
  double steady_tokens = 0.0;  // inside the steady window (all C streams in flight: protocol/serving_level.hpp)
  double steady_seconds = 0.0;
  std::int64_t failed = 0;
};

void add_run(PathFigures& figures, const protocol::LevelRun& run) {
  for (const engine::RequestRecord& record : run.records) {
    if (!record.ok) continue;
    figures.latencies_s.push_back(record.finished.value - record.sent.value);
    if (const auto first = record.time_to_first_token()) figures.first_chunk_s.push_back(first->value);
    if (!record.chunk_times.empty()) figures.last_gap_s.push_back(record.finished.value - record.chunk_times.back().value);
  }
  figures.tokens += run.whole.tokens;
  figures.seconds += run.whole.duration().value;
  if (run.steady.end.value > run.steady.begin.value) {
    figures.steady_tokens += run.steady.tokens;
    figures.steady_seconds += run.steady.duration().value;
  }
  figures.failed += run.failed_requests();
}

// The counter the proxy reads: the fake NVML on the wall clock where it was built and is still there,
// else the driver's (a bench carried to a GPU machine reads the card it runs beside).
Result<proxy::GpuEnergyCounter> open_counter() {
#ifdef FAKE_NVML_PATH
  if (!std::filesystem::exists(FAKE_NVML_PATH)) return proxy::GpuEnergyCounter::open({}, "");
  const std::filesystem::path script = std::filesystem::temp_directory_path() / ("proxy_bench_nvml_" + std::to_string(::getpid()) + ".json");
  std::ofstream(script) << R"({"clock": "real", "devices": [{"uuid": "GPU-be0c0000-0000-4000-8000-000000000001",)"
                        << R"( "power": {"kind": "constant", "watts": 400}, "counter_update_period_s": 0.1}]})";
  setenv("FAKE_NVML_SCRIPT", script.c_str(), 1);
  return proxy::GpuEnergyCounter::open({"GPU-be0c0000-0000-4000-8000-000000000001"}, FAKE_NVML_PATH);
#else
  return proxy::GpuEnergyCounter::open({}, "");
#endif
}

void BM_ProxyOverhead(benchmark::State& state) {
  const int concurrency = static_cast<int>(state.range(0));
  const int chunks = 64;
  testing::FakeReply reply = testing::good_stream(chunks);
  reply.events[reply.events.size() - 2] += reply.events.back();  // usage and [DONE] in one write
  reply.events.pop_back();
  reply.delay_between = std::chrono::milliseconds(state.range(1));
  const auto room = static_cast<std::size_t>(concurrency) + 16;
  testing::FakeOpenAiServer server([&reply = std::as_const(reply)](const nlohmann::json&) { return reply; }, room,
                                   static_cast<int>(room));
  auto counter = open_counter();
  if (!counter) return state.SkipWithError(counter.error().describe().c_str());
  proxy::ProxyMetrics metrics;
  proxy::EnergyLedger ledger({}, [&metrics](const proxy::SettledRequest& s) { metrics.record_settled(s); });
  proxy::CounterPoller poller(std::move(*counter), ledger, system_clock(), std::chrono::milliseconds(5));
  if (!poller.start()) return state.SkipWithError("the counter does not read");
  proxy::ProxyServerOptions options;
  options.upstream = *proxy::parse_upstream_url("http://127.0.0.1:" + std::to_string(server.port()));
  options.listen = {"127.0.0.1", 0};
  options.threads = static_cast<int>(room);
  proxy::ProxyServer proxy_server(options, ledger, metrics, system_clock());
  const auto port = proxy_server.bind();
  if (!port) return state.SkipWithError(port.error().describe().c_str());
  std::thread listener([&] { proxy_server.listen(); });
  while (!proxy_server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));

  const engine::EndpointClient direct(*engine::parse_endpoint_spec("direct=" + server.base_url() + "#fake-model"), {},
                                      system_clock());
  const engine::EndpointClient proxied(
      *engine::parse_endpoint_spec("proxy=http://127.0.0.1:" + std::to_string(*port) + "/v1#fake-model"), {},
      system_clock());
  const std::vector<engine::CompletionRequest> requests{{"a prompt", chunks}};
  meter::NullMeter meter("bench");
  PathFigures figures[2];
  // The two paths alternate which goes first, so a drift over the run (or a first pass that finds the
  // server cold) does not fall on one path.
  bool direct_first = true;
  for (auto _ : state) {
    for (const int path : direct_first ? std::array{0, 1} : std::array{1, 0}) {
      const engine::EndpointClient& client = path == 0 ? direct : proxied;
      add_run(figures[path], protocol::run_level(client, requests, concurrency, 4 * concurrency, meter,
                                                 *system_clock(), nullptr));
    }
    direct_first = !direct_first;
  }
  proxy_server.stop();
  listener.join();
  poller.stop();
  const auto p_direct = protocol::percentiles(figures[0].latencies_s);
  const auto p_proxy = protocol::percentiles(figures[1].latencies_s);
  state.counters["direct_p50_ms"] = 1e3 * p_direct.p50.value_or(0.0);
  state.counters["proxy_p50_ms"] = 1e3 * p_proxy.p50.value_or(0.0);
  state.counters["direct_p99_ms"] = 1e3 * p_direct.p99.value_or(0.0);
  state.counters["proxy_p99_ms"] = 1e3 * p_proxy.p99.value_or(0.0);
  // Where the added time falls: before the first chunk (connections, the upstream call) or after the last.
  state.counters["direct_first_p50_ms"] = 1e3 * protocol::percentiles(figures[0].first_chunk_s).p50.value_or(0.0);
  state.counters["proxy_first_p50_ms"] = 1e3 * protocol::percentiles(figures[1].first_chunk_s).p50.value_or(0.0);
  state.counters["direct_end_p50_ms"] = 1e3 * protocol::percentiles(figures[0].last_gap_s).p50.value_or(0.0);
  state.counters["proxy_end_p50_ms"] = 1e3 * protocol::percentiles(figures[1].last_gap_s).p50.value_or(0.0);
  state.counters["added_p50_pct"] = 100.0 * (p_proxy.p50.value_or(0.0) / p_direct.p50.value_or(1.0) - 1.0);
  const double direct_rate = figures[0].tokens / figures[0].seconds;
  const double proxy_rate = figures[1].tokens / figures[1].seconds;
  state.counters["direct_tokens_per_s"] = direct_rate;
  state.counters["proxy_tokens_per_s"] = proxy_rate;
  state.counters["throughput_ratio"] = proxy_rate / direct_rate;
  // The same inside the steady windows: the streams' ramp-up and ramp-down (connections opened at once, the
  // last answers alone) left out.
  state.counters["steady_ratio"] =
      (figures[1].steady_tokens / figures[1].steady_seconds) / (figures[0].steady_tokens / figures[0].steady_seconds);
  state.counters["failed_requests"] = static_cast<double>(figures[0].failed + figures[1].failed);
  const proxy::LedgerTotals totals = ledger.totals();
  state.counters["proxy_counter_j"] = totals.counter_j;
}
BENCHMARK(BM_ProxyOverhead)
    ->ArgNames({"C", "pace_ms"})
    ->Args({256, 20})
    ->Args({16, 20})
    ->Args({256, 0})
    ->Iterations(4)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
