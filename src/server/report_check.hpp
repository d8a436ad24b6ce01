// /v1/check: the grade `ecocompute check` gives, for the web page and any client, without storing
// anything. A POST carries an energy.json; a GET carries the point a share link encodes.
#pragma once

#include <string_view>

#include "decide/evidence.hpp"
#include "data/published_reference.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::server {

/// Grades an uploaded energy.json (1.0, 1.1 or 1.2). Returns the grade (decide::GradeResult's JSON) and
/// `overlay`, the point as the published share link encodes it ({m, N, a, p, e, b, g}; e recomputed
/// from the energies when the report has them). It is graded by our rules (decide::GradingRules::ecocompute),
/// and the answer says so (`rules`, `rules_note`: how they differ from the published checker's). A
/// report that cannot be graded (no size, no curve, not a measurement) is a grade of not_gradeable with
/// the reason; a stated ΔE its energies contradict is named in `warnings`; text that is not a report is
/// an invalid_input error.
[[nodiscard]] Result<Json> check_report(std::string_view body, const decide::Evidence& evidence);

/// Grades an uploaded energy.json by the published checker's rules (`?rules=published`, as `ecocompute
/// check --rules published`): direct-nvml measurements only, the stated ΔE against the mean of the
/// published anchors at the same size, else the published curve. Same answer shape as check_report.
[[nodiscard]] Result<Json> check_report_published(std::string_view body, const data::PublishedReference& reference);

/// Grades the point of a share link: params_b (or N), arch (or a), precision (or p), delta_pct (or
/// e), basis (or b), and optionally engine (default: the precision's usual one), model (m) and gpu (g)
/// echoed in `overlay`. A link carries no measurement_source, so its basis is taken as stated (the answer's
/// `warnings` say so). A missing or malformed field is an invalid_argument error naming it.
[[nodiscard]] Result<Json> check_point(const Json& input, const decide::Evidence& evidence);

}  // namespace ecocompute::server
