// The server's own occupancy through a serving trial: the requests it says it is running (its decode
// batch), read from its Prometheus /metrics (engine/server_metrics.hpp) every fraction of a second while
// the trial runs. A closed loop of C streams does not hold the server's batch at C: requests finish and
// start at different times, a server with fewer slots queues the rest, and energy per token depends on
// the batch strongly (in llama.cpp it changes sign between batch 4 and 16). The trace says what batch a
// level's J/token was measured at: the time-weighted share of the steady window at each occupancy.
#pragma once

#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "engine/endpoint_client.hpp"
#include "util/clock.hpp"

namespace ecocompute::protocol {

/// One reading of the server's running requests, at the client's clock: the midpoint between sending
/// GET /metrics and its answer (a server answers it between decode steps, so the value it gives is of
/// some instant in that span, not of the moment it was asked).
struct OccupancySample {
  Seconds at{0.0};
  double running = 0.0;
};

struct OccupancyTrace {
  std::vector<OccupancySample> samples;  ///< in time order
  std::string unavailable;               ///< why the server's occupancy could not be read; empty when it was
};

/// Reads client.running_requests() every `interval` on a thread of its own, from construction until
/// stop() (or destruction). The first failed read ends the trace with its reason: a server without
/// metrics is not asked again each interval.
class OccupancySampler {
 public:
  /// Takes the first reading itself before it returns (the thread, started only when that reading
  /// succeeded, takes the rest), so that a window opened after construction begins inside the trace: a
  /// thread started but not yet scheduled would leave the window's first milliseconds unread. A server
  /// whose /metrics stalls delays the return by the client's read timeout, once: that read fails and
  /// ends the trace.
  OccupancySampler(const engine::EndpointClient& client, const Clock& clock, Seconds interval);
  ~OccupancySampler();
  OccupancySampler(const OccupancySampler&) = delete;
  OccupancySampler& operator=(const OccupancySampler&) = delete;
  /// Stops reading and returns the trace (once; an empty trace after that).
  OccupancyTrace stop();

 private:
  void run();
  /// One reading into the trace; false (with the reason kept) when it failed.
  bool read_once();
  const engine::EndpointClient& client_;
  const Clock& clock_;
  Seconds interval_;
  std::mutex mutex_;
  std::condition_variable stop_changed_;
  bool stopping_ = false;
  OccupancyTrace trace_;
  std::thread thread_;
};

/// The occupancy of a span [begin, end] from one or more traces: seconds at each occupancy (the
/// reading rounded to a whole request, each holding until the next reading of its trace, the last
/// until `end`), the time-weighted mean, and the seconds the readings covered.
struct OccupancyShares {
  std::map<int, double> seconds_at;
  double covered_s = 0.0;
  double weighted_sum = 0.0;  ///< Σ occupancy × seconds
  int readings_inside = 0;    ///< readings taken inside [begin, end]: a mean from one or two is little evidence
  /// Adds what `samples` say of [begin, end].
  void add(std::span<const OccupancySample> samples, Seconds begin, Seconds end);
  [[nodiscard]] std::optional<double> mean() const;
  /// The share of the covered time at each occupancy (sums to 1); empty when nothing was covered.
  [[nodiscard]] std::map<int, double> shares() const;
};

}  // namespace ecocompute::protocol
