// ProxyServer: the metering proxy's HTTP front. Completion requests go to the upstream server and
// come back with their attributed energy (usage fields, a header where the answer is not streamed,
// the last chunk of a stream); /metrics is the proxy's own; every other path passes through.
#pragma once

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "proxy/energy_ledger.hpp"
#include "proxy/proxy_address.hpp"
#include "proxy/proxy_metrics.hpp"
#include "proxy/upstream_call.hpp"
#include "util/clock.hpp"
#include "util/result.hpp"

namespace ecocompute::proxy {

/// The header that carries a non-streamed answer's attributed joules.
inline constexpr const char* kEnergyHeader = "X-Energy-J";

struct ProxyServerOptions {
  UpstreamUrl upstream;
  ListenAddress listen;
  /// Connections served at once (a stream holds one for its whole length); more wait in the queue.
  int threads = 512;
  UpstreamTimeouts upstream_timeouts;
  /// A client must send its request, and take each piece of the answer, within this long.
  std::chrono::seconds client_timeout{30};
  std::size_t max_request_bytes = 16u << 20;
  /// A non-streamed answer larger than this is answered 502 (the proxy reads it whole to add energy).
  std::size_t max_answer_bytes = 64u << 20;
  /// Distinct model names given their own metrics; later ones are counted as "other".
  std::size_t max_models = 64;
};

class ProxyServer {
 public:
  /// `ledger` and `metrics` must outlive the server.
  ProxyServer(ProxyServerOptions options, EnergyLedger& ledger, ProxyMetrics& metrics, std::shared_ptr<Clock> clock);
  ~ProxyServer();
  ProxyServer(const ProxyServer&) = delete;
  ProxyServer& operator=(const ProxyServer&) = delete;

  /// Binds the listen address; returns the bound port. The error names the address.
  Result<int> bind();
  /// Serves until stop(); returns false when it could not.
  bool listen();
  void stop();
  [[nodiscard]] bool is_running() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ecocompute::proxy
