// Serving level: one trial of one endpoint at one concurrency — a closed loop keeping C requests in
// flight, the whole run metered, and a steady-state window metered inside it.
//
// The steady-state rule. The window begins the first time all C in-flight requests have produced
// text (for a request that is not streamed: has been sent), so the ramp-up — connections opening,
// the first prefills, a server still admitting requests — is outside it. It ends the moment the first
// worker finds no request left to send: from then on fewer than C requests are in flight (the
// ramp-down). The tokens of the window are counted from chunk arrival times: a request whose usage
// says N tokens over M text chunks contributes N/M tokens per chunk that arrived inside the window
// (one token per chunk when the server streams token by token); a request not streamed contributes
// N × the share of its [sent, finished] span inside the window. A window with a failed request
// overlapping it is invalid (its tokens are unknown), and so is one the load drained before it could
// begin. The whole run (first request sent to last response) is metered too, so that the ramp effect
// on J/token is visible beside the window's.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "engine/endpoint_client.hpp"
#include "meter/measurement.hpp"
#include "meter/meter.hpp"
#include "protocol/server_occupancy.hpp"
#include "util/clock.hpp"

namespace ecocompute::protocol {

/// One metered span of a level (the steady-state window or the whole run).
struct ServingWindow {
  std::optional<meter::Measurement> measurement;  ///< absent when the window never opened
  Seconds begin{0.0};
  Seconds end{0.0};
  double tokens = 0.0;          ///< output tokens counted inside (see the rule above)
  std::int64_t requests = 0;    ///< ok requests that finished inside
  std::string invalid_reason;   ///< why the window is no measurement; empty when it is one

  [[nodiscard]] bool usable() const noexcept { return invalid_reason.empty() && measurement.has_value(); }
  [[nodiscard]] Seconds duration() const noexcept { return Seconds{end.value - begin.value}; }
  /// Returns the meter's energy when the window is usable and the meter read one.
  [[nodiscard]] std::optional<Joules> energy() const;
};

/// Returns whether a trial's request was sent and failed. A sent request that fails always carries
/// its reason; a record without one was never filled in (a cancel came before it was sent).
[[nodiscard]] inline bool sent_and_failed(const engine::RequestRecord& r) { return !r.ok && !r.failure.empty(); }
/// Returns whether a trial's request was never sent (see sent_and_failed).
[[nodiscard]] inline bool never_sent(const engine::RequestRecord& r) { return !r.ok && r.failure.empty(); }

/// One (endpoint, concurrency, block) trial.
struct LevelRun {
  std::size_t endpoint = 0;      ///< index into the sweep's endpoints
  std::string label;             ///< the endpoint's label
  int concurrency = 1;
  int block = 0;
  std::size_t order_index = 0;   ///< position in the sweep's run order
  std::string started_utc;
  std::vector<engine::RequestRecord> records;
  ServingWindow steady;
  ServingWindow whole;
  bool cancelled = false;
  /// The unmetered level warm-up right before this trial (SweepDesign::level_warmup_trials):
  /// requests sent, and of those failed; 0 and 0 when the trial had none.
  std::int64_t level_warmup_sent = 0;
  std::int64_t level_warmup_failed = 0;
  /// The server's running requests through the trial (LevelOptions::read_occupancy); empty when not read.
  OccupancyTrace occupancy;
  /// The host's wall clock (µs, the time base of the driver's power samples) minus the run's clock
  /// (µs), taken as the steady window opened: places the occupancy readings on the power trace.
  std::int64_t wall_minus_clock_us = 0;

  /// Returns the requests that were sent and failed (each carries its reason).
  [[nodiscard]] std::int64_t failed_requests() const;
  /// Returns the requests never sent, because a cancel came first (no reason, no tokens).
  [[nodiscard]] std::int64_t unsent_requests() const;
  /// Returns the first failed request's reason (empty when none failed).
  [[nodiscard]] std::string first_request_failure() const;
  /// Returns whether the trial enters the statistics: not cancelled and its steady window usable.
  [[nodiscard]] bool is_ok() const { return !cancelled && steady.usable(); }
  /// Returns why the trial is not ok (empty when it is).
  [[nodiscard]] std::string reason() const;
};

/// How a metered trial sends its requests and what it reads beside them.
struct LevelOptions {
  /// Rounds instead of a closed loop: the C requests of a round are sent together and the next round
  /// starts when all of them have ended, so a server with C slots runs a batch of C through each round
  /// (with one output length, the round's requests end together) instead of whatever the loop leaves running.
  bool lockstep = false;
  /// Reads the server's running requests from its /metrics through the trial (server_occupancy.hpp).
  bool read_occupancy = false;
  Seconds occupancy_interval{0.2};
};

/// Runs `n_requests` requests, taken from `requests` in order (cycling), through `client` with
/// `concurrency` in flight, and meters the whole run and the steady-state window on `meter`.
/// `cancel` (may be null) stops sending and cuts streams short; the run is then marked cancelled.
[[nodiscard]] LevelRun run_level(const engine::EndpointClient& client,
                                 std::span<const engine::CompletionRequest> requests, int concurrency,
                                 std::int64_t n_requests, meter::Meter& meter, const Clock& clock,
                                 const std::atomic<bool>* cancel, const LevelOptions& options = {});

/// Counts the tokens of `records` inside [begin, end] by the rule above (ok records only).
[[nodiscard]] double tokens_inside(std::span<const engine::RequestRecord> records, Seconds begin, Seconds end);

}  // namespace ecocompute::protocol
