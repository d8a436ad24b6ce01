// Upload rules: what a report must also satisfy, beyond its schema, before the server stores it as a
// replication — the basis must agree with the numbers, and the numbers must be ones a real run can
// have: every figure within the range the field table gives it, the ranges the 1.2 schema states,
// applied to a report of any version (the 1.1 schema bounds next to nothing). The measurement and
// stated-ΔE rules are shared with `check` (report/measurement_claim.hpp, report/stated_delta.hpp).
#pragma once

#include <optional>
#include <string>

#include "report/energy_report.hpp"

namespace ecocompute::report {

/// Returns why `report` may not be stored, or nothing when it may. Checked after the schema.
[[nodiscard]] std::optional<std::string> upload_rule_violation(const EnergyReport& report);

}  // namespace ecocompute::report
