// Grader: checks a measured report against a reference for its architecture, engine and precision,
// by one of two rule sets, and says which one graded it.
//
//   ecocompute (the default)  the report's energies give ΔE; the reference is the decision model's
//                             95 % predictive interval for a new card at the report's GPU, engine,
//                             format, size and batch (the same interval estimate answers with), with
//                             the report's own session left out of the evidence
//   published                 the published checker's (ecocompute-mlcube tools/check_regression.py):
//                             the stated ΔE against the mean of the published anchors at that size,
//                             else the published curve
//
// Both refuse anything that is not a GPU energy measurement (report/measurement_claim.hpp), and both
// say when the stated ΔE disagrees with the energies (report/stated_delta.hpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "data/curve_set.hpp"
#include "data/data_row.hpp"
#include "data/published_reference.hpp"
#include "data/quality_cost.hpp"
#include "decide/evidence.hpp"
#include "report/energy_report.hpp"
#include "util/defaults.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::decide {

using data::Basis;
using data::CurveKey;
using data::PublishedReference;

enum class Grade {
  inside,         ///< inside the reference band  (exit 0)
  outside,        ///< outside it                 (exit 1)
  not_gradeable,  ///< not a measurement, no model or reference for it, no size (exit 2)
};
std::string_view to_string(Grade grade) noexcept;

/// Which rules grade a report.
enum class GradingRules {
  ecocompute,  ///< ours: ΔE from the energies against the decision model's predictive interval
  published,   ///< the published checker's: stated ΔE, anchors pooled over sessions, then the curve
};
std::string_view to_string(GradingRules rules) noexcept;
/// Parses "ecocompute" or "published"; the error names the value.
Result<GradingRules> parse_grading_rules(std::string_view text);
/// Returns what the rules do and how they differ from the other set (printed with every grade).
std::string_view describe(GradingRules rules) noexcept;

/// A measured point the reference was taken from.
struct GradeAnchor {
  double params_b = 0.0;
  double delta_pct = 0.0;
  int n = 1;
  std::string label;  ///< GPU or session, and model
};

struct GradeResult {
  Grade grade = Grade::not_gradeable;
  GradingRules rules = GradingRules::ecocompute;
  std::string reason;
  std::optional<double> measured_delta_pct;  ///< the ΔE graded
  std::string measured_delta_from;           ///< "energies" (recomputed) or "stated" (vs_fp16_energy_pct)
  std::optional<double> stated_delta_pct;    ///< results.vs_fp16_energy_pct as the report states it
  std::string reference;                     ///< "model" (ours), "anchors" or "curve" (published)
  std::vector<GradeAnchor> anchors;          ///< measured points at that place (ours: other sessions') or averaged (published)
  std::optional<double> expected_delta_pct;  ///< the reference value
  std::optional<double> curve_delta_pct;     ///< the published curve at that size (published rules)
  std::optional<double> band_low_pct, band_high_pct;
  double k = defaults::check_band_k;         ///< published: band half-width in resid_std; ours: the interval's quantile
  std::optional<CurveKey> curve;             ///< what the reference is for (architecture, engine, precision)
  std::string curve_session;                 ///< published: the reference's source
  std::optional<data::FigureBasis> reference_basis;  ///< ours: the basis of the model's figure
  std::vector<std::string> warnings;         ///< e.g. a stated ΔE its energies contradict; a borrowed curve
  /// Ours: what the graded format costs in quality (the report's own probe on real weights, else the
  /// evidence's answer for its architecture and size), with its own basis.
  std::optional<data::FormatQualityCost> quality;

  /// Returns 0 inside, 1 outside, 2 not gradeable.
  [[nodiscard]] int exit_code() const noexcept;
};

/// One measured ΔE at one size: what a share link states.
struct GradePoint {
  std::string gpu_arch;
  std::string engine;
  std::string precision;
  double params_b = 0;
  double delta_pct = 0;
  Basis basis = Basis::measured;
};

/// Grades a report by our rules against the decision model (without the report's own session).
GradeResult grade_report(const report::EnergyReport& report, const Evidence& evidence);

/// Grades a report by the published checker's rules against the published reference.
GradeResult grade_report_published(const report::EnergyReport& report, const PublishedReference& reference,
                                   double k = defaults::check_band_k);

/// Grades a share link's point by our rules (it carries no measurement_source: its basis is taken as
/// stated, and the answer says so).
GradeResult grade_point(const GradePoint& point, const Evidence& evidence);

/// A grade of not_gradeable with `reason` (e.g. an unreadable report), under `rules`.
GradeResult not_gradeable(std::string reason, GradingRules rules, double k = defaults::check_band_k);

void to_json(Json& j, const GradeResult& result);
/// Returns the lines printed by `ecocompute check`: the grade and reason, the rules, any warnings.
std::string to_text(const GradeResult& result);

}  // namespace ecocompute::decide
