// run_proxy: `ecocompute proxy`: opens the GPU counters, starts the counter poller and the proxy
// server, and serves until SIGINT or SIGTERM.
#pragma once

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include "proxy/interval_split.hpp"
#include "proxy/proxy_server.hpp"
#include "util/result.hpp"

namespace ecocompute::proxy {

struct ProxyRunOptions {
  ProxyServerOptions server;
  /// GPUs the upstream server runs on (UUID, PCI bus id, cuda:N); empty: the first visible one.
  std::vector<std::string> gpus;
  std::string nvml_library;  ///< empty: $ECOCOMPUTE_NVML_LIBRARY or the driver's
  /// How often the counter is read: well below its update period (100 ms on H200), to find each update.
  std::chrono::milliseconds counter_poll{5};
  PrefillWeightRule prefill_weight;
  std::filesystem::path port_file;  ///< written with the bound port once listening (tests, scripts)
};

/// Serves until a signal. Errors: a GPU that cannot be read (unavailable, naming it), an address that
/// cannot be bound (unavailable).
Result<void> run_proxy(const ProxyRunOptions& options);

}  // namespace ecocompute::proxy
