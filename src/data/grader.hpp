// Grader: checks a measured report against the curve for its architecture, engine and precision.
#pragma once

#include <optional>
#include <string>

#include "data/data_row.hpp"
#include "data/evidence.hpp"
#include "util/defaults.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::data {

enum class Grade {
  inside,         ///< |measured − curve| ≤ k · resid_std  (exit 0)
  outside,        ///< outside that band                    (exit 1)
  not_gradeable,  ///< not measured, no curve, size missing or outside the curve's range (exit 2)
};
std::string_view to_string(Grade grade) noexcept;

struct GradeResult {
  Grade grade = Grade::not_gradeable;
  std::string reason;
  std::optional<double> measured_delta_pct;
  std::optional<double> expected_delta_pct;
  std::optional<double> band_low_pct, band_high_pct;
  double k = defaults::check_band_k;
  std::optional<CurveKey> curve;
  std::string curve_session;

  /// Returns 0 inside, 1 outside, 2 not gradeable.
  [[nodiscard]] int exit_code() const noexcept;
};

/// One measured ΔE at one size: what a report row or a share link states.
struct GradePoint {
  std::string gpu_arch;
  std::string engine;
  std::string precision;
  double params_b = 0;
  double delta_pct = 0;          ///< ΔE % vs the baseline, recomputed from the energies where there are any
  Basis basis = Basis::measured;
};

/// Grades one point against the curve of its (architecture, engine, precision).
GradeResult grade_point(const GradePoint& point, const Evidence& evidence, double k = defaults::check_band_k);

/// Grades the first quantized row of a report batch (import_energy_report) against the evidence.
GradeResult grade(const ImportBatch& report, const Evidence& evidence, double k = defaults::check_band_k);

/// Grades one row.
GradeResult grade_row(const DataRow& row, const Evidence& evidence, double k = defaults::check_band_k);

void to_json(Json& j, const GradeResult& result);

}  // namespace ecocompute::data
