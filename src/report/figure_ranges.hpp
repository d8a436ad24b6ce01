// Every figure of a typed report against the range the field table gives it (energy_fields.hpp): what
// the 1.2 schema checks on a document, for a report of any version, as uploads need it.
#pragma once

#include <optional>
#include <string>

#include "report/energy_report.hpp"

namespace ecocompute::report {

/// The first figure outside its range, in the order a report is written, as "results.energy_j 2e+09 is
/// outside [0, 1e+09] J"; nothing when every figure is within its range. Absent figures are not checked.
[[nodiscard]] std::optional<std::string> figure_out_of_range(const EnergyReport& report);

}  // namespace ecocompute::report
