// Serving sweep: endpoints × concurrency levels × k blocks, interleaved like protocol::Schedule
// interleaves precisions — every block holds each (level, endpoint) once, the endpoints in alternating
// order (baseline first in even blocks, last in odd ones) unless asked otherwise — so a candidate's
// trial is paired with the baseline trial of the same block and level, run minutes apart on the same
// machine, and a drift over a level's blocks (a server warming up, the host slowing) cannot favour one
// endpoint. A level may stop early under a sequential rule once its paired ΔE are narrow enough.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/endpoint_client.hpp"
#include "meter/meter.hpp"
#include "protocol/serving_level.hpp"
#include "util/clock.hpp"
#include "util/defaults.hpp"
#include "util/result.hpp"

namespace ecocompute::protocol {

/// The order of the endpoints inside each (level, block).
enum class EndpointOrder {
  alternating,     ///< baseline first in even blocks (0, 2 …), the order reversed in odd ones
  baseline_first,  ///< the baseline first in every block
};
/// Returns "alternating" or "baseline_first".
[[nodiscard]] std::string_view to_string(EndpointOrder order) noexcept;

struct SweepDesign {
  std::vector<int> concurrency = {1, 2, 4, 8, 16, 32, 64};
  int trials = 3;                     ///< blocks (k): trials per endpoint and level
  int warmup_requests = 2;            ///< unmetered requests before every trial, one at a time
  /// Requests per trial: max(request set size, requests_per_stream × C), so every stream runs
  /// several requests and the steady state is more than one request long.
  int requests_per_stream = 4;
  /// Level by level: all k blocks of a level before the next level, so a server sized for one level
  /// (restarted by a level switch) serves all of that level's trials. Pairs stay within a block.
  bool level_by_level = false;
  EndpointOrder endpoint_order = EndpointOrder::alternating;
  /// Unmetered trials at the level's concurrency (each requests_per_trial requests): each endpoint
  /// runs them before its first trial of a level since the sweep began or a switch ran. A server that
  /// may have just started pays for its first batches; on the H200 one C-request round was not enough
  /// (F16 at C = 8: block 1 +9.9 % J/token over blocks 2–8), while a block that followed a whole
  /// trial was steady. 0: none.
  int level_warmup_trials = defaults::serving_level_warmup_trials;
  /// Sequential stopping (`--target-ci`): from block min_trials on, a level takes no more blocks once
  /// every candidate's paired ΔE CI at that level is within ± target_ci_pt; `trials` is then the most.
  std::optional<double> target_ci_pt;
  int min_trials = defaults::min_trials;
  /// How every metered trial runs (lockstep rounds, the server's occupancy read); level warm-ups are
  /// plain closed loops that read nothing.
  LevelOptions trial;

  /// Returns a usage error naming the first bad field, or nothing.
  [[nodiscard]] Result<void> validate() const;
  /// Returns the number of requests a trial at concurrency `c` sends with a set of `set_size`.
  [[nodiscard]] std::int64_t requests_per_trial(int c, std::size_t set_size) const;
  /// Returns the requests of the level warm-up at `c`: level_warmup_trials whole trials.
  [[nodiscard]] std::int64_t level_warmup_requests(int c, std::size_t set_size) const;
  /// Returns the confidence of every interval the sweep reports: 0.95, or with target_ci_pt the
  /// confidence of each look (confidence_per_look over the looks after blocks min_trials … trials).
  [[nodiscard]] double confidence() const;
};

/// One trial of the plan.
struct SweepStep {
  std::size_t endpoint = 0;
  int concurrency = 1;
  int block = 0;
};

/// Returns the run order: for each block, each level in the given order, each endpoint (in the
/// block's endpoint order); with `level_by_level`, for each level, each block, each endpoint.
[[nodiscard]] std::vector<SweepStep> sweep_schedule(const SweepDesign& design, std::size_t n_endpoints);

/// Called before a trial whose endpoint differs from the previous trial's (and before the first):
/// e.g. restarts one server with that endpoint's model. An error ends the sweep.
using EndpointSwitch = std::function<Result<void>(const engine::EndpointSpec&)>;
/// Called before the first trial of a level whose concurrency differs from the previous trial's (and
/// before the first trial): e.g. restarts the servers with one slot per stream. An error ends the sweep.
using LevelSwitch = std::function<Result<void>(int concurrency)>;
/// What runs between trials: the level switch first, then the endpoint switch; either may be empty.
struct SweepSwitches {
  EndpointSwitch endpoint;
  LevelSwitch level;
};
/// Called after every trial (progress, log).
using SweepProgress = std::function<void(const LevelRun&, std::size_t done, std::size_t total)>;

/// What the sequential rule did at one level.
struct LevelStop {
  int concurrency = 1;
  int blocks_run = 0;       ///< blocks with at least one trial run at this level
  bool reached = false;     ///< every candidate's CI within the target at the last look
  std::string status;       ///< the last look in words (or why there was none)
};

/// Looks at one level after `blocks` blocks: whether every candidate endpoint's paired ΔE CI (at
/// `confidence`) is within ± `target_ci_pt`, with each candidate's ΔE and half-width in words.
[[nodiscard]] LevelStop look_at_level(std::span<const LevelRun> runs, std::size_t n_endpoints, int concurrency,
                                      int blocks, double target_ci_pt, double confidence);

struct SweepResult {
  SweepDesign design;
  std::vector<engine::EndpointSpec> endpoints;  ///< endpoints[0] is the baseline
  std::vector<LevelRun> runs;                   ///< in run order
  bool cancelled = false;
  std::string failure;                          ///< why the sweep stopped early (a switch failed)
  std::vector<LevelStop> stops;                 ///< with target_ci_pt: one per level, in the design's order
};

/// Runs the plan. Trials after a cancel are not run (the result says cancelled).
[[nodiscard]] SweepResult run_sweep(std::span<const engine::EndpointClient> clients,
                                    std::span<const engine::CompletionRequest> requests, const SweepDesign& design,
                                    meter::Meter& meter, const Clock& clock, const SweepSwitches& switches,
                                    const SweepProgress& progress, const std::atomic<bool>* cancel);

}  // namespace ecocompute::protocol
