// Grader: checks a measured report against a reference for its architecture, engine and precision,
// by one of two rule sets, and says which one graded it.
//
//   ecocompute (the default)  the report's energies give ΔE; the reference is the same-size points of
//                             one session's curve, else that curve inside its measured size range
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

#include "data/data_row.hpp"
#include "data/evidence.hpp"
#include "data/published_reference.hpp"
#include "report/energy_report.hpp"
#include "util/defaults.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::data {

enum class Grade {
  inside,         ///< |ΔE − reference| ≤ k · resid_std  (exit 0)
  outside,        ///< outside that band                  (exit 1)
  not_gradeable,  ///< not a measurement, no reference, size missing or outside the curve's range (exit 2)
};
std::string_view to_string(Grade grade) noexcept;

/// Which rules grade a report.
enum class GradingRules {
  ecocompute,  ///< ours: ΔE from the energies, one session's points and curve, its measured range
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
  std::string reference;                     ///< "anchors" (same-size points) or "curve"
  std::vector<GradeAnchor> anchors;          ///< the same-size points averaged into the reference
  std::optional<double> expected_delta_pct;  ///< the reference value
  std::optional<double> curve_delta_pct;     ///< the curve at that size (also when anchors were the reference)
  std::optional<double> band_low_pct, band_high_pct;
  double k = defaults::check_band_k;
  std::optional<CurveKey> curve;
  std::string curve_session;
  std::vector<std::string> warnings;         ///< e.g. a stated ΔE its energies contradict; a borrowed curve

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

/// Grades a report by our rules against the evidence's curves (and their sessions' points).
GradeResult grade_report(const report::EnergyReport& report, const Evidence& evidence,
                         double k = defaults::check_band_k);

/// Grades a report by the published checker's rules against the published reference.
GradeResult grade_report_published(const report::EnergyReport& report, const PublishedReference& reference,
                                   double k = defaults::check_band_k);

/// Grades a share link's point by our rules (it carries no measurement_source: its basis is taken as
/// stated, and the answer says so).
GradeResult grade_point(const GradePoint& point, const Evidence& evidence, double k = defaults::check_band_k);

/// A grade of not_gradeable with `reason` (e.g. an unreadable report), under `rules`.
GradeResult not_gradeable(std::string reason, GradingRules rules, double k = defaults::check_band_k);

void to_json(Json& j, const GradeResult& result);
/// Returns the lines printed by `ecocompute check`: the grade and reason, the rules, any warnings.
std::string to_text(const GradeResult& result);

}  // namespace ecocompute::data
