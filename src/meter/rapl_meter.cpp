// RaplMeter and NullMeter: CPU package energy from powercap, and the meter of last resort.
#include "meter/rapl_meter.hpp"

#include "meter/rapl_zones.hpp"

#include <fmt/format.h>

namespace ecocompute::meter {

std::uint64_t wrapped_delta(std::uint64_t begin, std::uint64_t end, std::uint64_t max_range) noexcept {
  return end >= begin ? end - begin : end + max_range - begin;
}

Result<std::unique_ptr<RaplMeter>> RaplMeter::open(const std::filesystem::path& root, std::shared_ptr<Clock> clock) {
  auto zones = find_rapl_zones(root, RaplZoneKind::package);
  if (!zones) return zones.error();
  return std::unique_ptr<RaplMeter>(new RaplMeter(std::move(*zones), std::move(clock)));
}

std::string RaplMeter::device() const {
  std::string out;
  for (const RaplZone& zone : zones_) out += (out.empty() ? "" : " + ") + zone.name;
  return out;
}

RaplMeter::Edge RaplMeter::read_edge() const {
  Edge edge;
  edge.steady = clock_->now();
  edge.energy_uj = read_rapl_counters(zones_);
  return edge;
}

Window RaplMeter::do_begin(std::string label) {
  Edge edge = read_edge();
  std::lock_guard lock(mutex_);
  const std::uint64_t id = next_window_id_++;
  open_windows_.emplace(id, std::move(edge));
  return make_window(std::move(label), id);
}

Result<Measurement> RaplMeter::do_end(Window& window) {
  Edge end = read_edge();
  Edge begin;
  {
    std::lock_guard lock(mutex_);
    auto it = open_windows_.find(window.id());
    if (it == open_windows_.end()) {
      return unexpected(ErrorCode::internal, fmt::format("window '{}' was not opened by this meter", window.label()));
    }
    begin = std::move(it->second);
    open_windows_.erase(it);
  }
  Measurement m;
  m.label = window.label();
  m.source = source();
  m.device = device();
  m.duration = end.steady - begin.steady;
  auto joules = rapl_joules_between(zones_, begin.energy_uj, end.energy_uj);
  if (!joules) {
    m.status = WindowStatus::read_failed;
    m.invalid_reason = joules.error().describe();
    return m;
  }
  m.status = WindowStatus::valid;
  m.energy = Joules{*joules};
  return m;
}

Window NullMeter::do_begin(std::string label) {
  std::lock_guard lock(mutex_);
  const std::uint64_t id = next_window_id_++;
  open_windows_.emplace(id, clock_->now());
  return make_window(std::move(label), id);
}

Result<Measurement> NullMeter::do_end(Window& window) {
  const Seconds now = clock_->now();
  std::lock_guard lock(mutex_);
  auto it = open_windows_.find(window.id());
  if (it == open_windows_.end()) {
    return unexpected(ErrorCode::internal, fmt::format("window '{}' was not opened by this meter", window.label()));
  }
  Measurement m;
  m.label = window.label();
  m.source = source();
  m.device = device();
  m.status = WindowStatus::unavailable;
  m.invalid_reason = reason_;
  m.duration = now - it->second;
  open_windows_.erase(it);
  return m;
}

}  // namespace ecocompute::meter
