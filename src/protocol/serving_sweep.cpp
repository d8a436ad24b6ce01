#include "protocol/serving_sweep.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "meter/rapl_meter.hpp"
#include "protocol/sequential_rule.hpp"
#include "protocol/serving_statistics.hpp"
#include "util/log.hpp"
#include "util/statistics.hpp"

namespace ecocompute::protocol {

std::string_view to_string(EndpointOrder order) noexcept {
  switch (order) {
    case EndpointOrder::alternating: return "alternating";
    case EndpointOrder::baseline_first: return "baseline_first";
  }
  return "unknown";
}

Result<void> SweepDesign::validate() const {
  if (concurrency.empty()) return unexpected(ErrorCode::invalid_argument, "--concurrency: no level given");
  std::set<int> seen;
  for (int c : concurrency) {
    if (c < 1 || c > 4096) {
      return unexpected(ErrorCode::invalid_argument, fmt::format("--concurrency: {} is not from 1 to 4096", c));
    }
    if (!seen.insert(c).second) {
      return unexpected(ErrorCode::invalid_argument, fmt::format("--concurrency: {} is listed twice", c));
    }
  }
  if (trials < 1) return unexpected(ErrorCode::invalid_argument, "-k: at least 1 trial");
  if (warmup_requests < 0) return unexpected(ErrorCode::invalid_argument, "--warmup-requests: not negative");
  if (requests_per_stream < 1) return unexpected(ErrorCode::invalid_argument, "--requests-per-stream: at least 1");
  if (level_warmup_trials < 0) return unexpected(ErrorCode::invalid_argument, "--level-warmup: not negative");
  return check_sequential_rule({target_ci_pt, min_trials, trials}, {"--target-ci", "--min-trials", "-k"});
}

double SweepDesign::confidence() const { return sequential_rule_confidence({target_ci_pt, min_trials, trials}); }

std::int64_t SweepDesign::requests_per_trial(int c, std::size_t set_size) const {
  return std::max(static_cast<std::int64_t>(set_size), static_cast<std::int64_t>(requests_per_stream) * c);
}

std::int64_t SweepDesign::level_warmup_requests(int c, std::size_t set_size) const {
  return static_cast<std::int64_t>(level_warmup_trials) * requests_per_trial(c, set_size);
}

std::vector<SweepStep> sweep_schedule(const SweepDesign& design, std::size_t n_endpoints) {
  std::vector<SweepStep> out;
  const auto add_level = [&](int c, int block) {
    const bool reversed = design.endpoint_order == EndpointOrder::alternating && block % 2 == 1;
    for (std::size_t i = 0; i < n_endpoints; ++i) out.push_back({reversed ? n_endpoints - 1 - i : i, c, block});
  };
  if (design.level_by_level) {
    for (int c : design.concurrency) {
      for (int block = 0; block < design.trials; ++block) add_level(c, block);
    }
  } else {
    for (int block = 0; block < design.trials; ++block) {
      for (int c : design.concurrency) add_level(c, block);
    }
  }
  return out;
}

LevelStop look_at_level(std::span<const LevelRun> runs, std::size_t n_endpoints, int concurrency, int blocks,
                        double target_ci_pt, double confidence) {
  LevelStop stop;
  stop.concurrency = concurrency;
  stop.blocks_run = blocks;
  stop.reached = n_endpoints > 1;
  std::vector<std::string> parts;
  for (std::size_t e = 1; e < n_endpoints; ++e) {
    std::string label = fmt::format("endpoint {}", e);
    for (const LevelRun& r : runs) {
      if (r.endpoint == e) label = r.label;
    }
    const ServingPaired paired = paired_at_level(runs, e, concurrency, confidence);
    if (!paired.delta_pct.ci_half_width) {
      stop.reached = false;
      parts.push_back(fmt::format("{}: {} valid pair(s), a CI needs 2", label, paired.delta_pct.n));
      continue;
    }
    const double half = *paired.delta_pct.ci_half_width;
    if (half > target_ci_pt) stop.reached = false;
    parts.push_back(fmt::format("{} {:+.2f} ± {:.2f} pt", label, paired.delta_pct.mean, half));
  }
  stop.status = fmt::format("C={}: target {} after {} blocks at {:.2f} % per look: {}", concurrency,
                            stop.reached ? "reached" : "not reached", blocks, confidence * 100.0,
                            fmt::join(parts, ", "));
  return stop;
}

namespace {

struct WarmUp {
  std::int64_t sent = 0;
  std::int64_t failed = 0;
};

// A level's warm-up: `count` requests at concurrency C, metered by nothing.
WarmUp warm_up_level(const engine::EndpointClient& client, std::span<const engine::CompletionRequest> requests,
                     int concurrency, std::int64_t count, const Clock& clock, const std::atomic<bool>* cancel) {
  meter::NullMeter unmetered("level warm-up");
  const LevelRun warm = run_level(client, requests, concurrency, count, unmetered, clock, cancel);
  const WarmUp out{static_cast<std::int64_t>(warm.records.size()) - warm.unsent_requests(), warm.failed_requests()};
  if (out.failed > 0) {
    log::warn("{} C={}: {} of {} level warm-up requests failed: {}", client.spec().label, concurrency, out.failed,
              out.sent, warm.first_request_failure());
  }
  return out;
}

// Fills a stop for every level the rule never looked at (fewer blocks than min_trials, a cancel).
std::vector<LevelStop> level_stops(const SweepDesign& design, const std::map<int, LevelStop>& looked,
                                   std::span<const LevelRun> runs) {
  std::vector<LevelStop> out;
  for (int c : design.concurrency) {
    if (auto found = looked.find(c); found != looked.end()) {
      out.push_back(found->second);
      continue;
    }
    LevelStop stop;
    stop.concurrency = c;
    for (const LevelRun& r : runs) {
      if (r.concurrency == c) stop.blocks_run = std::max(stop.blocks_run, r.block + 1);
    }
    stop.status = fmt::format("C={}: stopped after {} blocks, before the rule's first look (block {})", c,
                              stop.blocks_run, design.min_trials);
    out.push_back(std::move(stop));
  }
  return out;
}

}  // namespace

SweepResult run_sweep(std::span<const engine::EndpointClient> clients,
                      std::span<const engine::CompletionRequest> requests, const SweepDesign& design,
                      meter::Meter& meter, const Clock& clock, const SweepSwitches& switches,
                      const SweepProgress& progress, const std::atomic<bool>* cancel) {
  SweepResult result;
  result.design = design;
  for (const engine::EndpointClient& c : clients) result.endpoints.push_back(c.spec());
  const std::vector<SweepStep> plan = sweep_schedule(design, clients.size());
  std::optional<std::size_t> current;
  std::optional<int> current_level;
  // (endpoint, level) pairs warmed up since the servers last may have (re)started.
  std::set<std::pair<std::size_t, int>> warmed;
  std::set<int> stopped_levels;
  std::map<int, LevelStop> looked;
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (cancel != nullptr && cancel->load()) {
      result.cancelled = true;
      break;
    }
    const SweepStep& step = plan[i];
    if (stopped_levels.contains(step.concurrency)) continue;
    const engine::EndpointClient& client = clients[step.endpoint];
    if (switches.level && current_level != step.concurrency) {
      if (auto switched = switches.level(step.concurrency); !switched) {
        result.failure = fmt::format("switching to concurrency {} failed: {}", step.concurrency, switched.error().message());
        break;
      }
      current.reset();  // the level switch may have restarted the servers: an endpoint switch runs again
      warmed.clear();
    }
    current_level = step.concurrency;
    if (switches.endpoint && current != step.endpoint) {
      if (auto switched = switches.endpoint(client.spec()); !switched) {
        result.failure = "switching to endpoint " + client.spec().label + " failed: " + switched.error().message();
        break;
      }
      warmed.clear();
    }
    current = step.endpoint;
    WarmUp warm;
    if (design.level_warmup_trials > 0 && warmed.insert({step.endpoint, step.concurrency}).second) {
      warm = warm_up_level(client, requests, step.concurrency,
                           design.level_warmup_requests(step.concurrency, requests.size()), clock, cancel);
    }
    for (int w = 0; w < design.warmup_requests; ++w) {
      (void)client.send(requests[static_cast<std::size_t>(w) % requests.size()], cancel);
    }
    LevelRun run = run_level(client, requests, step.concurrency,
                             design.requests_per_trial(step.concurrency, requests.size()), meter, clock, cancel,
                             design.trial);
    run.level_warmup_sent = warm.sent;
    run.level_warmup_failed = warm.failed;
    run.endpoint = step.endpoint;
    run.block = step.block;
    run.order_index = i;
    if (run.cancelled) result.cancelled = true;
    result.runs.push_back(std::move(run));
    if (progress) progress(result.runs.back(), i + 1, plan.size());
    if (result.cancelled) break;

    const bool block_done = i + 1 == plan.size() || plan[i + 1].concurrency != step.concurrency ||
                            plan[i + 1].block != step.block;
    if (design.target_ci_pt && block_done && step.block + 1 >= design.min_trials) {
      LevelStop stop = look_at_level(result.runs, clients.size(), step.concurrency, step.block + 1,
                                     *design.target_ci_pt, design.confidence());
      log::info("{}", stop.status);
      if (stop.reached) stopped_levels.insert(step.concurrency);
      looked[step.concurrency] = std::move(stop);
    }
  }
  if (design.target_ci_pt) result.stops = level_stops(design, looked, result.runs);
  return result;
}

}  // namespace ecocompute::protocol
