// Does the endpoint client keep up with a fast server? A fake OpenAI server streams 64 one-token chunks
// per request with no delay; one serving level keeps 256 requests in flight through the client (both on
// this machine's cores). Reported: output tokens per second the client took in and timestamped, and
// whether the steady-state window opened (all 256 streams producing at once). Results: bench/RESULTS.md.
#include <benchmark/benchmark.h>

#include "meter/rapl_meter.hpp"
#include "protocol/serving_level.hpp"
#include "support/fake_openai_server.hpp"

namespace {

using namespace ecocompute;

void BM_ClosedLoopFastServer(benchmark::State& state) {
  const int concurrency = static_cast<int>(state.range(0));
  const int chunks = 64;
  testing::FakeOpenAiServer server([chunks](const nlohmann::json&) { return testing::good_stream(chunks); },
                                   static_cast<std::size_t>(concurrency) + 16);
  const engine::EndpointClient client(
      *engine::parse_endpoint_spec("F16=" + server.base_url() + "#fake-model"), {}, system_clock());
  const std::vector<engine::CompletionRequest> requests{{"a prompt", chunks}};
  meter::NullMeter meter("bench");
  double tokens = 0.0, seconds = 0.0, window_tokens = 0.0, window_seconds = 0.0;
  std::int64_t failed = 0, windows = 0;
  for (auto _ : state) {
    const protocol::LevelRun run =
        protocol::run_level(client, requests, concurrency, 4 * concurrency, meter, *system_clock(), nullptr);
    tokens += run.whole.tokens;
    seconds += run.whole.duration().value;
    failed += run.failed_requests();
    if (run.steady.usable()) {
      ++windows;
      window_tokens += run.steady.tokens;
      window_seconds += run.steady.duration().value;
    }
  }
  state.counters["tokens_per_s"] = tokens / seconds;
  state.counters["window_tokens_per_s"] = window_seconds > 0 ? window_tokens / window_seconds : 0.0;
  state.counters["steady_windows"] = static_cast<double>(windows);
  state.counters["failed_requests"] = static_cast<double>(failed);
}
BENCHMARK(BM_ClosedLoopFastServer)->Arg(16)->Arg(256)->Iterations(3)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
