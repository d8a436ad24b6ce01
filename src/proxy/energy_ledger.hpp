// EnergyLedger: the GPU counter's energy, interval by interval, booked to the requests in flight in
// each interval (attributed, not measured per request) or to idle. An interval is booked ("settled")
// once every request in flight in it has ended, when their token counts are final; until then it is
// unsettled. Every joule of every closed interval ends in exactly one account (docs/proxy.md).
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

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

/// Thread-safe. Times are seconds on one steady clock; the caller passes them. A request's arrival and
/// its chunks are queued and booked by the next call that reads or changes the accounts, so the threads
/// relaying answers never wait while an ending answer's energy is worked out.
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
  [[nodiscard]] LedgerTotals totals();

 private:
  struct TrackedRequest {
    std::string model;
    RequestActivity activity;
    double settled_j = 0.0;
    std::size_t output_chunks = 0;
  };
  // A request's arrival (`model` set) or one of its output chunks, as queued by the relaying threads.
  struct QueuedEvent {
    std::uint64_t id = 0;
    double time_s = 0.0;
    std::optional<std::string> model;
    double prompt_tokens_estimate = 0.0;
    bool streamed = false;
  };
  struct ClosedInterval {
    double begin_s = 0.0;
    double end_s = 0.0;
    double joules = 0.0;
    // Unsettled: the token sums over the requests in it whose tokens are fixed there (tokens_are_fixed),
    // kept as they change, and whether one request spans it all (no idle part to work out).
    TokenSums fixed;
    bool covered = false;
  };
  void queue(QueuedEvent event);
  // Books the queued arrivals and chunks, in the order they came (lock held).
  void apply_queued();
  void apply_begin(QueuedEvent& event);
  void apply_output(std::uint64_t id, double now_s);
  // Books every leading interval whose requests have all ended, then retires finished requests (lock held).
  void settle_ready();
  void retire_finished();
  // The requests in flight in [begin_s, end_s), in `out` (its capacity kept between calls).
  void in_flight_during(double begin_s, double end_s, std::vector<const RequestActivity*>& out) const;
  double share_of(std::uint64_t id, const ClosedInterval& interval, double now_s) const;
  // The request's share of the unsettled intervals, from their kept sums and the requests not fixed yet.
  double unsettled_share(const RequestActivity& activity, double now_s) const;
  // Changes a request's activity by `change`, keeping the unsettled intervals' sums and the requests not
  // yet fixed up to date (lock held).
  template <typename Change>
  void reweigh(RequestActivity& activity, Change change);
  void add_fixed_tokens(const RequestActivity& activity, bool add);
  // The first unsettled interval that ends after `time_s` (the intervals before it end by then).
  std::size_t unsettled_after(double time_s) const;
  void sum_fixed_tokens(ClosedInterval& interval) const;
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
  // In flight with tokens not fixed (nodes of requests_): every unstreamed request in flight is one.
  std::map<std::uint64_t, RequestActivity*> unfixed_;
  std::deque<ClosedInterval> unsettled_;
  std::deque<double> first_chunk_s_;  // the last streamed requests' times to first chunk
  std::deque<double> decode_rates_;   // and their output tokens per second after it
  std::deque<double> output_scales_;  // and their output tokens per chunk
  std::optional<double> open_begin_s_;
  double last_power_w_ = 0.0;
  bool power_known_ = false;
  std::atomic<std::uint64_t> next_id_ = 1;
  std::mutex queue_mutex_;  // taken alone, or after mutex_
  std::vector<QueuedEvent> queued_;
  std::vector<QueuedEvent> applying_;  // the queue swapped out while it is booked (lock held)
  LedgerTotals totals_;
  // Working room for an answer's provisional share (lock held), kept so that it allocates nothing.
  mutable std::vector<const RequestActivity*> share_requests_;
  mutable std::vector<IntervalTokens> share_tokens_;
  mutable std::vector<TokenSums> share_sums_;
};

}  // namespace ecocompute::proxy
