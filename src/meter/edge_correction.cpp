// Edge correction: staleness of a counter reading from the trace between its update and the edge.
#include "meter/edge_correction.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "meter/power_trace.hpp"

namespace ecocompute::meter {

std::optional<CounterChange> change_to(const std::vector<CounterChange>& changes, std::uint64_t energy_mj) {
  for (auto it = changes.rbegin(); it != changes.rend(); ++it) {
    if (it->energy_mj == energy_mj) return *it;
    // Counter values only grow: an older change cannot lead to a larger value.
    if (it->energy_mj < energy_mj) return std::nullopt;
  }
  return std::nullopt;
}

Result<EdgeStaleness> edge_staleness(const CounterChange& change, std::uint64_t edge_us, Watts edge_power,
                                     const std::vector<PowerSample>& trace, std::uint64_t edge_tolerance_us) {
  if (change.first_new_us < change.last_old_us) {
    return unexpected(ErrorCode::internal, fmt::format("counter change seen at {} µs before its old value at {} µs",
                                                       change.first_new_us, change.last_old_us));
  }
  EdgeStaleness s;
  // The edge's own read may be the one that saw the change, so the interval can end after the edge.
  s.update_us = std::min(edge_us, change.last_old_us + (change.first_new_us - change.last_old_us) / 2);
  const double half_interval_s = static_cast<double>(change.first_new_us - change.last_old_us) / 2e6;
  const double span_s = static_cast<double>(edge_us - s.update_us) / 1e6;
  s.uncertainty = Joules{edge_power.value * half_interval_s};
  if (edge_us == s.update_us) return s;

  const std::optional<Joules> energy = trace_energy(trace, s.update_us, edge_us, edge_tolerance_us);
  if (!energy) {
    return unexpected(ErrorCode::unavailable,
                      fmt::format("the power trace does not cover the {:.1f} ms between the counter's update and "
                                  "the edge", span_s * 1e3));
  }
  s.energy = *energy;
  // The trace is piecewise linear between samples; the truth can lie anywhere between the lowest and
  // the highest power seen around the span.
  const std::uint64_t from = s.update_us > edge_tolerance_us ? s.update_us - edge_tolerance_us : 0;
  const std::vector<PowerSample> around = samples_in(trace, from, edge_us + edge_tolerance_us);
  if (!around.empty()) {
    const auto [low, high] = std::minmax_element(around.begin(), around.end(),
                                                 [](const PowerSample& a, const PowerSample& b) {
                                                   return a.power.value < b.power.value;
                                                 });
    s.uncertainty.value += (high->power.value - low->power.value) * span_s;
  }
  return s;
}

}  // namespace ecocompute::meter
