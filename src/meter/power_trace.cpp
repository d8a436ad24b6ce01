// Trace and counter arithmetic behind every window and the selftest.
#include "meter/power_trace.hpp"

#include <algorithm>
#include <cmath>

namespace ecocompute::meter {

std::optional<double> quantile(std::vector<double> values, double q) {
  if (values.empty()) return std::nullopt;
  std::sort(values.begin(), values.end());
  // Nearest rank: the smallest value with at least q·n values at or below it.
  const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(values.size())));
  return values[std::clamp<std::size_t>(rank, 1, values.size()) - 1];
}

std::optional<Seconds> counter_update_period(const std::vector<CounterReading>& readings) {
  std::vector<double> change_times;
  for (std::size_t i = 1; i < readings.size(); ++i) {
    if (readings[i].energy_mj != readings[i - 1].energy_mj) change_times.push_back(readings[i].time.value);
  }
  std::vector<double> intervals;
  for (std::size_t i = 1; i < change_times.size(); ++i) intervals.push_back(change_times[i] - change_times[i - 1]);
  auto m = median(std::move(intervals));
  if (!m) return std::nullopt;
  return Seconds{*m};
}

std::optional<Seconds> median_sample_spacing(const std::vector<PowerSample>& trace) {
  std::vector<double> gaps;
  for (std::size_t i = 1; i < trace.size(); ++i) {
    gaps.push_back(static_cast<double>(trace[i].timestamp_us - trace[i - 1].timestamp_us) / 1e6);
  }
  auto m = median(std::move(gaps));
  if (!m) return std::nullopt;
  return Seconds{*m};
}

std::vector<PowerSample> samples_in(const std::vector<PowerSample>& trace, std::uint64_t begin_us,
                                    std::uint64_t end_us) {
  std::vector<PowerSample> out;
  for (const PowerSample& s : trace) {
    if (s.timestamp_us >= begin_us && s.timestamp_us <= end_us) out.push_back(s);
  }
  return out;
}

std::optional<Joules> trace_energy(const std::vector<PowerSample>& trace, std::uint64_t begin_us,
                                   std::uint64_t end_us, std::uint64_t edge_tolerance_us) {
  if (trace.empty() || end_us <= begin_us) return std::nullopt;
  const PowerSample& first = trace.front();
  const PowerSample& last = trace.back();
  if (first.timestamp_us > begin_us + edge_tolerance_us) return std::nullopt;
  if (last.timestamp_us + edge_tolerance_us < end_us) return std::nullopt;

  // Power at time t on the piecewise-linear trace, held constant outside it.
  auto power_at = [&](double t) {
    if (t <= static_cast<double>(first.timestamp_us)) return first.power.value;
    if (t >= static_cast<double>(last.timestamp_us)) return last.power.value;
    auto it = std::lower_bound(trace.begin(), trace.end(), t,
                               [](const PowerSample& s, double x) { return static_cast<double>(s.timestamp_us) < x; });
    const PowerSample& b = *it;
    const PowerSample& a = *(it - 1);
    const double span = static_cast<double>(b.timestamp_us - a.timestamp_us);
    const double w = (t - static_cast<double>(a.timestamp_us)) / span;
    return a.power.value + w * (b.power.value - a.power.value);
  };
  // Knots: the window edges plus every sample strictly inside; trapezoids between knots are exact
  // for a piecewise-linear function.
  std::vector<double> knots{static_cast<double>(begin_us)};
  for (const PowerSample& s : trace) {
    if (s.timestamp_us > begin_us && s.timestamp_us < end_us) knots.push_back(static_cast<double>(s.timestamp_us));
  }
  knots.push_back(static_cast<double>(end_us));
  double joules = 0.0;
  for (std::size_t i = 1; i < knots.size(); ++i) {
    joules += (power_at(knots[i - 1]) + power_at(knots[i])) / 2.0 * (knots[i] - knots[i - 1]) / 1e6;
  }
  return Joules{joules};
}

std::optional<double> disagreement_pct(Joules other, Joules reference) {
  if (reference.value == 0.0) return std::nullopt;
  return (other.value - reference.value) / reference.value * 100.0;
}

}  // namespace ecocompute::meter
