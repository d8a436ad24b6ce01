// The consistency checker: every figure of a report that can be recomputed from its other figures is
// recomputed, and a report whose figures contradict one another (a total that is not per-token energy
// × tokens, more failed trials than trials, a confidence interval upside down, more power than the
// card can draw, a date that does not exist, a GGUF type other than the precision) is refused, naming
// the field and both values. One checker for `validate`, `check`, `data import` and uploads; the rules
// and their tolerances are listed in docs/energy-json.md ("Consistency rules").
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "report/energy_report.hpp"
#include "util/error.hpp"

namespace ecocompute::report {

/// One contradiction: the field that disagrees (a dotted path, "results.total_energy_joules") and why,
/// with both values ("1 J, but energy_per_token_mj 820.5 mJ × 7680 tokens_generated is 6301.2 J").
struct Contradiction {
  std::string field;
  std::string message;
  bool operator==(const Contradiction&) const = default;
};

/// Returns every contradiction in `report` (empty when its figures agree). Absent figures are not
/// compared. Rules follow the order of the report's sections.
[[nodiscard]] std::vector<Contradiction> find_contradictions(const EnergyReport& report);

/// Returns an invalid_input error naming `source` and every contradiction ("field: message"), or
/// nothing when the report is consistent.
[[nodiscard]] std::optional<Error> contradiction_error(const EnergyReport& report, std::string_view source);

/// Whether `text` is an RFC 3339 UTC date-time that exists ("2026-11-29T17:00:00Z", fractions and an
/// offset allowed): month 1–12, a day the month has (leap years counted), hour ≤ 23, minute ≤ 59, second ≤ 60.
[[nodiscard]] bool is_valid_timestamp(std::string_view text) noexcept;

}  // namespace ecocompute::report
