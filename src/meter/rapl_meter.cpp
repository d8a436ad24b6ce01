// RaplMeter and NullMeter: CPU package energy from powercap, and the meter of last resort.
#include "meter/rapl_meter.hpp"

#include <algorithm>
#include <fstream>
#include <regex>

#include <fmt/format.h>

namespace ecocompute::meter {
namespace {

Result<std::uint64_t> read_number(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return unexpected(ErrorCode::unavailable, fmt::format("cannot read {}", path.string()));
  std::uint64_t value = 0;
  if (!(in >> value)) return unexpected(ErrorCode::invalid_input, fmt::format("{} does not hold a number", path.string()));
  return value;
}

std::string read_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

}  // namespace

std::uint64_t wrapped_delta(std::uint64_t begin, std::uint64_t end, std::uint64_t max_range) noexcept {
  return end >= begin ? end - begin : end + max_range - begin;
}

Result<std::unique_ptr<RaplMeter>> RaplMeter::open(const std::filesystem::path& root, std::shared_ptr<Clock> clock) {
  static const std::regex package_zone(R"(^intel-rapl:\d+$)");
  std::vector<Zone> zones;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
    const std::string name = entry.path().filename().string();
    if (!std::regex_match(name, package_zone)) continue;
    auto energy = read_number(entry.path() / "energy_uj");
    if (!energy) return unexpected(ErrorCode::unavailable, fmt::format("RAPL: {}", energy.error().message()));
    auto range = read_number(entry.path() / "max_energy_range_uj");
    if (!range) return unexpected(ErrorCode::unavailable, fmt::format("RAPL: {}", range.error().message()));
    zones.push_back(Zone{entry.path(), name + " (" + read_line(entry.path() / "name") + ")", *range});
  }
  if (ec) return unexpected(ErrorCode::unavailable, fmt::format("RAPL: cannot list {}: {}", root.string(), ec.message()));
  if (zones.empty()) return unexpected(ErrorCode::unavailable, fmt::format("RAPL: no intel-rapl:N zone under {}", root.string()));
  std::sort(zones.begin(), zones.end(), [](const Zone& a, const Zone& b) { return a.dir < b.dir; });
  return std::unique_ptr<RaplMeter>(new RaplMeter(std::move(zones), std::move(clock)));
}

std::string RaplMeter::device() const {
  std::string out;
  for (const Zone& zone : zones_) out += (out.empty() ? "" : " + ") + zone.name;
  return out;
}

RaplMeter::Edge RaplMeter::read_edge() const {
  Edge edge;
  edge.steady = clock_->now();
  for (const Zone& zone : zones_) edge.energy_uj.push_back(read_number(zone.dir / "energy_uj"));
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
  std::uint64_t total_uj = 0;
  for (std::size_t i = 0; i < zones_.size(); ++i) {
    if (!begin.energy_uj[i] || !end.energy_uj[i]) {
      m.status = WindowStatus::read_failed;
      m.invalid_reason = (!begin.energy_uj[i] ? begin.energy_uj[i] : end.energy_uj[i]).error().describe();
      return m;
    }
    total_uj += wrapped_delta(*begin.energy_uj[i], *end.energy_uj[i], zones_[i].max_energy_range_uj);
  }
  m.status = WindowStatus::valid;
  m.energy = Joules{static_cast<double>(total_uj) / 1e6};
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
