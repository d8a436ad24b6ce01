#include "protocol/serving_level.hpp"

#include <algorithm>
#include <barrier>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>

#include <fmt/format.h>

#include "util/check.hpp"

namespace ecocompute::protocol {
namespace {

// What the workers share with the thread that opens and closes the windows.
struct LoopState {
  std::mutex mutex;
  std::condition_variable changed;
  std::int64_t next = 0;          ///< the next request to send
  int producing = 0;              ///< in-flight requests that have produced text
  int most_producing = 0;
  bool draining = false;          ///< a worker found no request left
  int workers_done = 0;
};

bool overlaps(const engine::RequestRecord& r, Seconds begin, Seconds end) {
  return r.sent.value < end.value && r.finished.value > begin.value;
}

void finish_window(ServingWindow& window, std::span<const engine::RequestRecord> records) {
  window.tokens = tokens_inside(records, window.begin, window.end);
  std::int64_t failed = 0;
  for (const engine::RequestRecord& r : records) {
    if (r.ok && r.finished.value >= window.begin.value && r.finished.value <= window.end.value) ++window.requests;
    if (!r.ok && overlaps(r, window.begin, window.end)) ++failed;
  }
  if (window.invalid_reason.empty() && failed > 0) {
    window.invalid_reason = fmt::format("{} failed request(s) overlapped the window (their tokens are unknown)", failed);
  }
  if (window.invalid_reason.empty() && window.tokens <= 0.0) window.invalid_reason = "no tokens inside the window";
}

}  // namespace

std::optional<Joules> ServingWindow::energy() const {
  if (!usable() || !measurement->is_valid()) return std::nullopt;
  return measurement->energy;
}

std::int64_t LevelRun::failed_requests() const {
  return std::count_if(records.begin(), records.end(), sent_and_failed);
}

std::int64_t LevelRun::unsent_requests() const {
  return std::count_if(records.begin(), records.end(), never_sent);
}

std::string LevelRun::first_request_failure() const {
  for (const engine::RequestRecord& r : records) {
    if (sent_and_failed(r)) return r.failure;
  }
  return {};
}

std::string LevelRun::reason() const {
  if (cancelled) return "cancelled";
  if (!steady.invalid_reason.empty()) return "steady-state window: " + steady.invalid_reason;
  if (!steady.measurement) return "steady-state window never opened";
  return {};
}

double tokens_inside(std::span<const engine::RequestRecord> records, Seconds begin, Seconds end) {
  double tokens = 0.0;
  for (const engine::RequestRecord& r : records) {
    if (!r.ok || r.output_tokens == 0) continue;
    if (r.streamed && !r.chunk_times.empty()) {
      const auto inside = std::count_if(r.chunk_times.begin(), r.chunk_times.end(), [&](Seconds t) {
        return t.value >= begin.value && t.value <= end.value;
      });
      tokens += static_cast<double>(r.output_tokens) * static_cast<double>(inside) /
                static_cast<double>(r.chunk_times.size());
    } else {
      const double span = r.finished.value - r.sent.value;
      if (span <= 0.0) continue;
      const double overlap = std::min(r.finished.value, end.value) - std::max(r.sent.value, begin.value);
      if (overlap > 0.0) tokens += static_cast<double>(r.output_tokens) * overlap / span;
    }
  }
  return tokens;
}

LevelRun run_level(const engine::EndpointClient& client, std::span<const engine::CompletionRequest> requests,
                   int concurrency, std::int64_t n_requests, meter::Meter& meter, const Clock& clock,
                   const std::atomic<bool>* cancel, const LevelOptions& options) {
  ECO_CHECK(!requests.empty() && concurrency >= 1 && n_requests >= 1, "run_level: empty request set or level");
  LevelRun run;
  run.label = client.spec().label;
  run.concurrency = concurrency;
  run.started_utc = clock.utc_now();
  std::vector<engine::RequestRecord> records(static_cast<std::size_t>(n_requests));
  LoopState state;
  const bool streamed = client.options().stream;
  auto is_cancelled = [&] { return cancel != nullptr && cancel->load(std::memory_order_relaxed); };
  // Lockstep: every worker takes its request, then all start together, and all wait for the round's end.
  // A worker left without a request drops out, which also counts as its arrival in the current round.
  std::optional<std::barrier<>> rounds;
  if (options.lockstep) rounds.emplace(concurrency);

  auto worker = [&] {
    while (true) {
      std::int64_t index = 0;
      {
        std::lock_guard lock(state.mutex);
        if (state.next >= n_requests || is_cancelled()) {
          state.draining = true;
          state.changed.notify_all();
          if (rounds) rounds->arrive_and_drop();
          break;
        }
        index = state.next++;
      }
      if (rounds) rounds->arrive_and_wait();
      bool produced = false;
      auto first_text = [&] {
        std::lock_guard lock(state.mutex);
        produced = true;
        state.most_producing = std::max(state.most_producing, ++state.producing);
        state.changed.notify_all();
      };
      if (!streamed) first_text();  // a response not streamed is "producing" from the moment it is sent
      const auto& request = requests[static_cast<std::size_t>(index) % requests.size()];
      engine::RequestRecord record = client.send(request, cancel, streamed ? first_text : std::function<void()>{});
      {
        std::lock_guard lock(state.mutex);
        records[static_cast<std::size_t>(index)] = std::move(record);
        if (produced) --state.producing;
      }
      if (rounds) rounds->arrive_and_wait();
    }
    std::lock_guard lock(state.mutex);
    ++state.workers_done;
    state.changed.notify_all();
  };

  std::optional<OccupancySampler> occupancy;
  if (options.read_occupancy) occupancy.emplace(client, clock, options.occupancy_interval);
  run.whole.begin = clock.now();
  meter::Window whole_window = meter.begin("serving-whole");
  std::vector<std::thread> workers;
  workers.reserve(static_cast<std::size_t>(concurrency));
  for (int i = 0; i < concurrency; ++i) workers.emplace_back(worker);

  std::optional<meter::Window> steady_window;
  {
    std::unique_lock lock(state.mutex);
    state.changed.wait(lock, [&] { return state.producing >= concurrency || state.draining; });
    if (!state.draining) {
      lock.unlock();
      run.steady.begin = clock.now();
      run.wall_minus_clock_us =
          static_cast<std::int64_t>(clock.wall_us()) - std::llround(run.steady.begin.value * 1e6);
      steady_window.emplace(meter.begin("serving-steady"));
      lock.lock();
      state.changed.wait(lock, [&] { return state.draining; });
      lock.unlock();
      run.steady.end = clock.now();
    } else {
      run.steady.invalid_reason =
          fmt::format("the load drained before all {} streams produced text at once (at most {}: does the server "
                      "run fewer requests in parallel, or are there too few requests per level?)",
                      concurrency, state.most_producing);
    }
  }
  if (steady_window) {
    auto measured = meter.end(std::move(*steady_window));
    if (measured) {
      run.steady.measurement = std::move(*measured);
    } else {
      run.steady.invalid_reason = "the meter failed: " + measured.error().message();
    }
  }
  for (std::thread& t : workers) t.join();
  run.whole.end = clock.now();
  if (occupancy) run.occupancy = occupancy->stop();
  auto whole = meter.end(std::move(whole_window));
  if (whole) {
    run.whole.measurement = std::move(*whole);
  } else {
    run.whole.invalid_reason = "the meter failed: " + whole.error().message();
  }
  run.cancelled = is_cancelled();
  run.records = std::move(records);
  if (run.steady.measurement) finish_window(run.steady, run.records);
  finish_window(run.whole, run.records);
  return run;
}

}  // namespace ecocompute::protocol
