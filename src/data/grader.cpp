// Grader: a measured row against its curve's k·resid_std band.
#include "data/grader.hpp"

#include <cmath>

#include <fmt/format.h>

#include "data/model_size.hpp"
#include "util/precision.hpp"

namespace ecocompute::data {

std::string_view to_string(Grade grade) noexcept {
  switch (grade) {
    case Grade::inside: return "inside";
    case Grade::outside: return "outside";
    case Grade::not_gradeable: return "not_gradeable";
  }
  return "not_gradeable";
}

int GradeResult::exit_code() const noexcept {
  switch (grade) {
    case Grade::inside: return 0;
    case Grade::outside: return 1;
    case Grade::not_gradeable: return 2;
  }
  return 2;
}

GradeResult grade_point(const GradePoint& point, const Evidence& evidence, double k) {
  GradeResult g;
  g.k = k;
  if (point.basis != Basis::measured) {
    g.reason = "the report is not a measurement (basis " + std::string(to_string(point.basis)) + ")";
    return g;
  }
  if (!std::isfinite(point.params_b) || point.params_b <= 0) {
    g.reason = "the report has no model size (workload.params_b)";
    return g;
  }
  if (!std::isfinite(point.delta_pct)) {
    g.reason = "the report has no ΔE vs FP16";
    return g;
  }
  g.measured_delta_pct = point.delta_pct;
  const CurveKey key{point.gpu_arch, point.engine, point.precision};
  const Curve* curve = evidence.curves.find(key);
  if (curve == nullptr) {
    g.reason = "no curve for " + point.gpu_arch + " / " + point.engine + " / " + point.precision;
    return g;
  }
  g.curve = key;
  g.curve_session = curve->session_label;
  if (!curve->fit.covers(point.params_b)) {
    g.reason = fmt::format("{:g} B is outside the curve's measured range {:g}–{:g} B", point.params_b,
                           curve->fit.range_min_b, curve->fit.range_max_b);
    return g;
  }
  if (curve->fit.resid_std_pct <= 0) {
    g.reason = "the curve has no residual scale (exact fit through its points)";
    return g;
  }
  const double expected = evaluate_curve(curve->fit.params, point.params_b);
  const double half = k * curve->fit.resid_std_pct;
  g.expected_delta_pct = expected;
  g.band_low_pct = expected - half;
  g.band_high_pct = expected + half;
  const bool inside = std::abs(*g.measured_delta_pct - expected) <= half;
  g.grade = inside ? Grade::inside : Grade::outside;
  g.reason = fmt::format("measured ΔE {:+.2f} % vs curve {:+.2f} % ± {:g}·{:.2f} ({} {} {}, session {}): {}",
                         *g.measured_delta_pct, expected, k, curve->fit.resid_std_pct, key.gpu_arch, key.engine,
                         key.precision, curve->session_label, inside ? "inside the band" : "outside the band");
  return g;
}

GradeResult grade_row(const DataRow& row, const Evidence& evidence, double k) {
  return grade_point(GradePoint{row.gpu_arch, row.engine, row.precision, row.params_b, row.delta_pct(), row.basis},
                     evidence, k);
}

GradeResult grade(const ImportBatch& report, const Evidence& evidence, double k) {
  for (const DataRow& row : report.rows) {
    auto p = parse_precision(row.precision);
    if (p && p->is_baseline) continue;
    return grade_row(row, evidence, k);
  }
  GradeResult g;
  g.k = k;
  g.reason = "the report holds no quantized row to grade";
  return g;
}

void to_json(Json& j, const GradeResult& g) {
  auto opt = [](const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); };
  j = Json{{"grade", to_string(g.grade)},
           {"exit_code", g.exit_code()},
           {"reason", g.reason},
           {"measured_delta_pct", opt(g.measured_delta_pct)},
           {"expected_delta_pct", opt(g.expected_delta_pct)},
           {"band", g.band_low_pct ? Json::array({*g.band_low_pct, *g.band_high_pct}) : Json(nullptr)},
           {"k", g.k},
           {"curve", g.curve ? Json(*g.curve) : Json(nullptr)},
           {"curve_session", g.curve_session}};
}

}  // namespace ecocompute::data
