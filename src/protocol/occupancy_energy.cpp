#include "protocol/occupancy_energy.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "meter/power_trace.hpp"

namespace ecocompute::protocol {
namespace {

std::uint64_t wall_us_of(const LevelRun& run, double at_s) {
  return static_cast<std::uint64_t>(run.wall_minus_clock_us + std::llround(at_s * 1e6));
}

// The trace's energy over [from_us, to_us]: a window over several GPUs sums each GPU's own trace. The
// nearest sample's power is held to an edge that falls between samples, whatever the gap, as the
// meter's own trace integral does at the window's edges.
std::optional<double> trace_joules(const meter::Measurement& m, std::uint64_t from_us, std::uint64_t to_us) {
  const std::uint64_t hold = to_us - from_us;
  if (m.per_device.empty()) {
    const auto e = meter::trace_energy(m.trace, from_us, to_us, hold);
    return e ? std::optional<double>(e->value) : std::nullopt;
  }
  double sum = 0.0;
  for (const meter::Measurement& device : m.per_device) {
    const auto e = meter::trace_energy(device.trace, from_us, to_us, hold);
    if (!e) return std::nullopt;
    sum += e->value;
  }
  return sum;
}

}  // namespace

OccupancySplit split_by_occupancy(const LevelRun& run) {
  OccupancySplit split;
  const auto& samples = run.occupancy.samples;
  const std::optional<Joules> energy = run.is_ok() ? run.steady.energy() : std::nullopt;
  if (!energy) {
    split.not_split = "the trial's steady window has no energy";
    return split;
  }
  split.window_joules = energy->value;
  if (samples.empty()) {
    split.not_split = run.occupancy.unavailable.empty() ? "no occupancy readings" : run.occupancy.unavailable;
    return split;
  }
  const meter::Measurement& m = *run.steady.measurement;
  const double begin = run.steady.begin.value, end = run.steady.end.value;
  const std::optional<double> trace_window = trace_joules(m, wall_us_of(run, begin), wall_us_of(run, end));
  if (!trace_window || !(*trace_window > 0.0)) {
    split.not_split = "no power trace over the steady window";
    return split;
  }
  const double scale = energy->value / *trace_window;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    const double from = std::max(samples[i].at.value, begin);
    const double to = std::min(i + 1 < samples.size() ? samples[i + 1].at.value : end, end);
    if (!(to > from)) continue;
    const std::optional<double> part = trace_joules(m, wall_us_of(run, from), wall_us_of(run, to));
    if (!part) continue;
    OccupancyEnergy& at = split.at[static_cast<int>(std::lround(samples[i].running))];
    at.seconds += to - from;
    at.joules += *part * scale;
    at.tokens += tokens_inside(run.records, Seconds{from}, Seconds{to});
  }
  return split;
}

void add_split(std::map<int, OccupancyEnergy>& total, const std::map<int, OccupancyEnergy>& part) {
  for (const auto& [running, e] : part) {
    OccupancyEnergy& t = total[running];
    t.seconds += e.seconds;
    t.joules += e.joules;
    t.tokens += e.tokens;
  }
}

}  // namespace ecocompute::protocol
