#include "meter/rapl_zones.hpp"

#include <algorithm>
#include <fstream>
#include <regex>

#include <fmt/format.h>

#include "meter/rapl_meter.hpp"

namespace ecocompute::meter {
namespace {

std::string read_line(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

bool is_zone_of(const std::filesystem::path& dir, RaplZoneKind kind) {
  static const std::regex package_zone(R"(^intel-rapl:\d+$)");
  static const std::regex sub_zone(R"(^intel-rapl:\d+:\d+$)");
  const std::string name = dir.filename().string();
  if (kind == RaplZoneKind::package) return std::regex_match(name, package_zone);
  return std::regex_match(name, sub_zone) && read_line(dir / "name") == "dram";
}

}  // namespace

Result<std::uint64_t> read_rapl_number(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) return unexpected(ErrorCode::unavailable, fmt::format("cannot read {}", path.string()));
  std::uint64_t value = 0;
  if (!(in >> value)) return unexpected(ErrorCode::invalid_input, fmt::format("{} does not hold a number", path.string()));
  return value;
}

Result<std::vector<RaplZone>> find_rapl_zones(const std::filesystem::path& root, RaplZoneKind kind) {
  std::vector<std::filesystem::path> dirs;
  std::error_code ec;
  // /sys/class/powercap lists packages and sub-zones side by side; a copied tree may hold a package's
  // sub-zones only inside its folder, so one level below each package is looked at too (never deeper:
  // sysfs folders link back up).
  for (const auto& entry : std::filesystem::directory_iterator(root, ec)) {
    dirs.push_back(entry.path());
    std::error_code inner;
    if (is_zone_of(entry.path(), RaplZoneKind::package)) {
      for (const auto& child : std::filesystem::directory_iterator(entry.path(), inner)) dirs.push_back(child.path());
    }
  }
  std::erase_if(dirs, [&](const std::filesystem::path& dir) { return !is_zone_of(dir, kind); });
  if (ec) return unexpected(ErrorCode::unavailable, fmt::format("RAPL: cannot list {}: {}", root.string(), ec.message()));
  std::vector<RaplZone> zones;
  for (const auto& dir : dirs) {
    const std::string name = dir.filename().string();
    if (std::any_of(zones.begin(), zones.end(), [&](const RaplZone& z) { return z.dir.filename() == name; })) continue;
    auto energy = read_rapl_number(dir / "energy_uj");
    if (!energy) return unexpected(ErrorCode::unavailable, fmt::format("RAPL: {}", energy.error().message()));
    auto range = read_rapl_number(dir / "max_energy_range_uj");
    if (!range) return unexpected(ErrorCode::unavailable, fmt::format("RAPL: {}", range.error().message()));
    zones.push_back(RaplZone{dir, name + " (" + read_line(dir / "name") + ")", *range});
  }
  if (zones.empty()) {
    return unexpected(ErrorCode::unavailable, fmt::format("RAPL: no intel-rapl:N{} zone under {}",
                                                          kind == RaplZoneKind::dram ? ":M dram" : "", root.string()));
  }
  std::sort(zones.begin(), zones.end(), [](const RaplZone& a, const RaplZone& b) { return a.dir.filename() < b.dir.filename(); });
  return zones;
}

std::vector<Result<std::uint64_t>> read_rapl_counters(const std::vector<RaplZone>& zones) {
  std::vector<Result<std::uint64_t>> out;
  out.reserve(zones.size());
  for (const RaplZone& zone : zones) out.push_back(read_rapl_number(zone.dir / "energy_uj"));
  return out;
}

Result<double> rapl_joules_between(const std::vector<RaplZone>& zones, const std::vector<Result<std::uint64_t>>& begin,
                                   const std::vector<Result<std::uint64_t>>& end) {
  std::uint64_t total_uj = 0;
  for (std::size_t i = 0; i < zones.size(); ++i) {
    if (!begin[i]) return begin[i].error();
    if (!end[i]) return end[i].error();
    total_uj += wrapped_delta(*begin[i], *end[i], zones[i].max_energy_range_uj);
  }
  return static_cast<double>(total_uj) / 1e6;
}

}  // namespace ecocompute::meter
