#include "proxy/run_proxy.hpp"

#include <pthread.h>

#include <atomic>
#include <csignal>
#include <thread>

#include "proxy/gpu_energy_counter.hpp"
#include "util/file_io.hpp"
#include "util/log.hpp"
#include "util/text_list.hpp"

namespace ecocompute::proxy {

namespace {

// Blocks SIGINT and SIGTERM in every thread started after it; restores the mask when it goes.
class BlockedStopSignals {
 public:
  BlockedStopSignals() {
    sigemptyset(&signals_);
    sigaddset(&signals_, SIGTERM);
    sigaddset(&signals_, SIGINT);
    pthread_sigmask(SIG_BLOCK, &signals_, &previous_);
  }
  ~BlockedStopSignals() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  BlockedStopSignals(const BlockedStopSignals&) = delete;
  BlockedStopSignals& operator=(const BlockedStopSignals&) = delete;
  [[nodiscard]] const sigset_t& signals() const { return signals_; }

 private:
  sigset_t signals_{};
  sigset_t previous_{};
};

void log_totals(const LedgerTotals& totals) {
  double attributed = 0.0;
  for (const auto& [model, joules] : totals.attributed_j) attributed += joules;
  log::info("counter {:.3f} J: attributed {:.3f} J, idle {:.3f} J, unsettled {:.3f} J", totals.counter_j, attributed,
            totals.idle_j, totals.unsettled_j);
}

}  // namespace

Result<void> run_proxy(const ProxyRunOptions& options) {
  auto counter = GpuEnergyCounter::open(options.gpus, options.nvml_library);
  if (!counter) return counter.error();
  const std::vector<std::string> devices = counter->devices();
  ProxyMetrics metrics;
  EnergyLedger ledger(options.prefill_weight, [&metrics](const SettledRequest& settled) { metrics.record_settled(settled); });
  const std::shared_ptr<Clock> clock = system_clock();

  // Signals are blocked before any thread starts, so only the waiter below receives them.
  BlockedStopSignals blocked;
  CounterPoller poller(std::move(*counter), ledger, clock, options.counter_poll);
  if (auto started = poller.start(); !started) return started.error();
  ProxyServer server(options.server, ledger, metrics, clock);
  auto port = server.bind();
  if (!port) return port.error();
  log::info("proxying http://{}:{}/ to {} (energy: {}; metrics at /metrics)", options.server.listen.host, *port,
            options.server.upstream.text(), join_commas(devices));
  if (!options.port_file.empty()) {
    if (auto written = write_file_atomic(options.port_file, std::to_string(*port) + "\n"); !written) return written.error();
  }
  std::atomic<bool> done{false};
  std::thread waiter([&] {
    const timespec tick{0, 200'000'000};
    while (!done.load()) {
      const int signal = sigtimedwait(&blocked.signals(), nullptr, &tick);
      if (signal == SIGTERM || signal == SIGINT) {
        log::info("received {}; stopping", signal == SIGTERM ? "SIGTERM" : "SIGINT");
        server.stop();
        return;
      }
    }
  });
  const bool listened = server.listen();
  done.store(true);
  waiter.join();
  poller.stop();
  log_totals(ledger.totals());
  if (!listened) return unexpected(ErrorCode::unavailable, "the proxy's HTTP server stopped unexpectedly");
  return {};
}

}  // namespace ecocompute::proxy
