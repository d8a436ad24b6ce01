// The stated ΔE against the energies it comes from: one rule for every reader that compares them
// (the upload rules refuse a report that breaks it; `check` and `/v1/check` say so in their answer).
#pragma once

#include <optional>
#include <string>

#include "report/energy_report.hpp"

namespace ecocompute::report {

/// Returns how results.vs_fp16_energy_pct disagrees with what the report's own figures give, or
/// nothing when it agrees or there is nothing to compare it with. A 1.2 report's stated value must
/// be its statistics' paired mean; every report's must match (energy − baseline) / baseline × 100
/// within rounding (max(0.05 pp, 0.5 % of the value)) or, for a report with paired statistics, within
/// max(0.5 pp, half its 95 % CI), since a mean of paired blocks is not the ratio of pooled energies.
[[nodiscard]] std::optional<std::string> stated_delta_disagreement(const EnergyReport& report);

}  // namespace ecocompute::report
