// Whether a report is a measurement: the one rule that `check`, `/v1/check`, the uploads and the
// dataset import share, so that nothing read off a curve, typed by hand to show a format, or run
// without an energy counter is ever graded or stored as measured.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "report/energy_report.hpp"

namespace ecocompute::report {

/// Returns true when `source` names a counter that reads energy: the GPU's ("direct-nvml", which
/// the published checker also accepts as a prefix) or the CPU package's ("rapl").
[[nodiscard]] bool reads_energy(std::string_view source) noexcept;

/// Returns why `report` is not a measurement of energy, or nothing when it is one. A measurement has
/// results.basis "measured", a measurement_source that reads energy, and no note (in
/// measurement_source, results.note or quality.note) calling its values illustrative, synthetic or
/// not from a real run.
[[nodiscard]] std::optional<std::string> why_not_measured(const EnergyReport& report);

/// Returns why `report` is not a measurement of a GPU's energy (what the curves hold), or nothing:
/// why_not_measured(), and a GPU (gpu_arch not "none") read by its own counter (direct-nvml).
[[nodiscard]] std::optional<std::string> why_not_gpu_measured(const EnergyReport& report);

}  // namespace ecocompute::report
