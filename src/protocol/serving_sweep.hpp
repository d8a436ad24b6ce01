// Serving sweep: endpoints × concurrency levels × k blocks, interleaved like protocol::Schedule
// interleaves precisions — every block holds each (level, endpoint) once, the baseline endpoint
// (the first) first at each level — so a candidate's trial is paired with the baseline trial of the
// same block and level, run minutes apart on the same machine.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "engine/endpoint_client.hpp"
#include "meter/meter.hpp"
#include "protocol/serving_level.hpp"
#include "util/clock.hpp"
#include "util/result.hpp"

namespace ecocompute::protocol {

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

  /// Returns a usage error naming the first bad field, or nothing.
  [[nodiscard]] Result<void> validate() const;
  /// Returns the number of requests a trial at concurrency `c` sends with a set of `set_size`.
  [[nodiscard]] std::int64_t requests_per_trial(int c, std::size_t set_size) const;
};

/// One trial of the plan.
struct SweepStep {
  std::size_t endpoint = 0;
  int concurrency = 1;
  int block = 0;
};

/// Returns the run order: for each block, each level in the given order, each endpoint (baseline first);
/// with `level_by_level`, for each level, each block, each endpoint.
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

struct SweepResult {
  SweepDesign design;
  std::vector<engine::EndpointSpec> endpoints;  ///< endpoints[0] is the baseline
  std::vector<LevelRun> runs;                   ///< in run order
  bool cancelled = false;
  std::string failure;                          ///< why the sweep stopped early (a switch failed)
};

/// Runs the plan. Trials after a cancel are not run (the result says cancelled).
[[nodiscard]] SweepResult run_sweep(std::span<const engine::EndpointClient> clients,
                                    std::span<const engine::CompletionRequest> requests, const SweepDesign& design,
                                    meter::Meter& meter, const Clock& clock, const SweepSwitches& switches,
                                    const SweepProgress& progress, const std::atomic<bool>* cancel);

}  // namespace ecocompute::protocol
