// EnergyLedger: the GPU counter's energy, interval by interval, booked to the requests in flight in
// each interval (attributed, not measured per request) or to idle. An interval is booked ("settled")
// once every request in flight in it has ended, when their token counts are final; until then it is
// unsettled. Every joule of every closed interval ends in exactly one account (docs/proxy.md).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "proxy/interval_split.hpp"

namespace ecocompute::proxy {

/// A request whose every interval is settled: its final attributed energy.
struct SettledRequest {
  std::string model;
  double joules = 0.0;
  double prompt_tokens = 0.0;
  double completion_tokens = 0.0;
};

/// The token counts a server reported for a request (its `usage`), when it did.
struct ReportedUsage {
  std::optional<double> prompt_tokens;
  std::optional<double> completion_tokens;
};

/// A request's energy when its answer ends: the settled part, the share of closed but unsettled
/// intervals as known now, and the interval still open (estimated at the last interval's power).
struct ProvisionalEnergy {
  double joules = 0.0;
  double open_interval_estimate_j = 0.0;  ///< the part not yet read from the counter
  bool counter_read = false;              ///< false before the counter's first interval closed
  double prompt_tokens = 0.0;             ///< as the ledger counts them (the usage, else the estimate)
  double completion_tokens = 0.0;         ///< the usage, else the output chunks seen
};

/// The accounts, for /metrics and the conservation check.
struct LedgerTotals {
  double counter_j = 0.0;     ///< energy of every closed interval (the counter's advance)
  double idle_j = 0.0;        ///< the time of closed intervals with no request in flight
  double unsettled_j = 0.0;   ///< closed intervals waiting for requests in flight to end
  std::map<std::string, double> attributed_j;  ///< settled, per model
  std::size_t in_flight = 0;
  std::uint64_t settled_requests = 0;   ///< requests whose energy is final (in the histograms)
  std::uint64_t skipped_intervals = 0;  ///< intervals whose energy the counter could not give (reset)
};

/// Thread-safe. Times are seconds on one steady clock; the caller passes them.
class EnergyLedger {
 public:
  using SettledCallback = std::function<void(const SettledRequest&)>;
  /// `on_settled` is called (with the ledger's lock held: it must not call back) for each request
  /// whose energy became final.
  explicit EnergyLedger(PrefillWeightRule rule = {}, SettledCallback on_settled = {});

  /// The counter's first reading: the first interval begins here.
  void start(double now_s);
  std::uint64_t begin_request(std::string model, double now_s, double prompt_tokens_estimate, bool streamed);
  /// A streamed output chunk passed.
  void record_output(std::uint64_t id, double now_s);
  /// The answer ended; `usage` replaces the estimates. Returns the request's energy as known now.
  ProvisionalEnergy finish_request(std::uint64_t id, double now_s, const ReportedUsage& usage);
  /// The counter advanced by `joules` since the last interval closed, at `end_s`.
  void close_interval(double end_s, double joules);
  /// The counter went back (reset): the interval ending at `end_s` has no known energy.
  void skip_interval(double end_s);
  [[nodiscard]] LedgerTotals totals() const;

 private:
  struct TrackedRequest {
    std::string model;
    RequestActivity activity;
    double settled_j = 0.0;
    std::size_t output_chunks = 0;
  };
  struct ClosedInterval {
    double begin_s = 0.0;
    double end_s = 0.0;
    double joules = 0.0;
  };
  // Books every leading interval whose requests have all ended, then retires finished requests (lock held).
  void settle_ready();
  void retire_finished();
  std::vector<const RequestActivity*> in_flight_during(double begin_s, double end_s) const;
  double share_of(std::uint64_t id, const ClosedInterval& interval, double now_s) const;
  // For unstreamed requests: the time a stream takes to its first chunk now, and one request's output
  // tokens per second now (lock held).
  double current_prompt_phase() const;
  double current_decode_rate() const;
  template <typename Measure>
  std::optional<double> median_over_streams_in_flight(Measure measure) const;

  PrefillWeightRule rule_;
  SettledCallback on_settled_;
  mutable std::mutex mutex_;
  std::map<std::uint64_t, TrackedRequest> requests_;
  std::deque<ClosedInterval> unsettled_;
  std::deque<double> first_chunk_s_;  // the last streamed requests' times to first chunk
  std::deque<double> decode_rates_;   // and their output tokens per second after it
  std::deque<double> output_scales_;  // and their output tokens per chunk
  std::optional<double> open_begin_s_;
  double last_power_w_ = 0.0;
  bool power_known_ = false;
  std::uint64_t next_id_ = 1;
  LedgerTotals totals_;
};

}  // namespace ecocompute::proxy
