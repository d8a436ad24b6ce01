#include "protocol/serving_sweep.hpp"

#include <algorithm>
#include <optional>
#include <set>

#include <fmt/format.h>

namespace ecocompute::protocol {

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
  return {};
}

std::int64_t SweepDesign::requests_per_trial(int c, std::size_t set_size) const {
  return std::max(static_cast<std::int64_t>(set_size), static_cast<std::int64_t>(requests_per_stream) * c);
}

std::vector<SweepStep> sweep_schedule(const SweepDesign& design, std::size_t n_endpoints) {
  std::vector<SweepStep> out;
  const auto add_level = [&](int c, int block) {
    for (std::size_t e = 0; e < n_endpoints; ++e) out.push_back({e, c, block});
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
  for (std::size_t i = 0; i < plan.size(); ++i) {
    if (cancel != nullptr && cancel->load()) {
      result.cancelled = true;
      break;
    }
    const SweepStep& step = plan[i];
    const engine::EndpointClient& client = clients[step.endpoint];
    if (switches.level && current_level != step.concurrency) {
      if (auto switched = switches.level(step.concurrency); !switched) {
        result.failure = fmt::format("switching to concurrency {} failed: {}", step.concurrency, switched.error().message());
        break;
      }
      current.reset();  // the level switch may have restarted the servers: an endpoint switch runs again
    }
    current_level = step.concurrency;
    if (switches.endpoint && current != step.endpoint) {
      if (auto switched = switches.endpoint(client.spec()); !switched) {
        result.failure = "switching to endpoint " + client.spec().label + " failed: " + switched.error().message();
        break;
      }
    }
    current = step.endpoint;
    for (int w = 0; w < design.warmup_requests; ++w) {
      (void)client.send(requests[static_cast<std::size_t>(w) % requests.size()], cancel);
    }
    LevelRun run = run_level(client, requests, step.concurrency,
                             design.requests_per_trial(step.concurrency, requests.size()), meter, clock, cancel);
    run.endpoint = step.endpoint;
    run.block = step.block;
    run.order_index = i;
    if (run.cancelled) result.cancelled = true;
    result.runs.push_back(std::move(run));
    if (progress) progress(result.runs.back(), i + 1, plan.size());
  }
  return result;
}

}  // namespace ecocompute::protocol
