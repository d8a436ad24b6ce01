// RAPL zones under Linux powercap: CPU packages (intel-rapl:N) and their DRAM sub-zones
// (intel-rapl:N:M whose name is "dram"), each an energy_uj counter that wraps at max_energy_range_uj.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "util/result.hpp"

namespace ecocompute::meter {

struct RaplZone {
  std::filesystem::path dir;
  std::string name;                       ///< "intel-rapl:0 (package-0)"
  std::uint64_t max_energy_range_uj = 0;
};

enum class RaplZoneKind { package, dram };

/// Reads one powercap number (energy_uj, max_energy_range_uj).
[[nodiscard]] Result<std::uint64_t> read_rapl_number(const std::filesystem::path& path);

/// The readable zones of one kind under `root`, sorted by path. Error{unavailable} naming the path when
/// the root cannot be listed, a zone's counter is unreadable (root-only on many kernels), or there is none.
[[nodiscard]] Result<std::vector<RaplZone>> find_rapl_zones(const std::filesystem::path& root, RaplZoneKind kind);

/// Energy in joules counted by `zones` between two readings of them (one reading per zone, in order),
/// each zone's wrap handled; an error names the zone that could not be read.
[[nodiscard]] Result<double> rapl_joules_between(const std::vector<RaplZone>& zones,
                                                 const std::vector<Result<std::uint64_t>>& begin,
                                                 const std::vector<Result<std::uint64_t>>& end);

/// One reading of every zone's energy_uj.
[[nodiscard]] std::vector<Result<std::uint64_t>> read_rapl_counters(const std::vector<RaplZone>& zones);

}  // namespace ecocompute::meter
