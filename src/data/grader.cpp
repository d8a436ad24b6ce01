// Grader: a measured ΔE against the same-size points or the curve of its key, by our rules or the
// published checker's.
#include "data/grader.hpp"

#include <cmath>

#include <fmt/format.h>

#include "data/dataset_import.hpp"
#include "data/gpu_spec.hpp"
#include "report/measurement_claim.hpp"
#include "report/stated_delta.hpp"

namespace ecocompute::data {
namespace {

// Sizes are compared as the published checker does: equal within 1e-9 B.
constexpr double kSameSizeB = 1e-9;

bool checker_same_size(double a, double b) { return std::abs(a - b) < kSameSizeB; }

std::string key_text(const CurveKey& key) { return key.gpu_arch + " " + key.engine + " " + key.precision; }

// The reference the ΔE is graded against, and where it came from.
struct Reference {
  double value = 0.0;
  double resid_std_pct = 0.0;
  std::string what;  ///< "the mean of 2 published anchors at 1.1 B", "the curve's value at 3 B" …
};

// Fills the band and the grade from the reference; the reason names both figures and the rules.
void grade_against(GradeResult& g, double delta, const Reference& ref, const std::string& context) {
  const double half = g.k * ref.resid_std_pct;
  g.measured_delta_pct = delta;
  g.expected_delta_pct = ref.value;
  g.band_low_pct = ref.value - half;
  g.band_high_pct = ref.value + half;
  const bool inside = std::abs(delta - ref.value) <= half;
  g.grade = inside ? Grade::inside : Grade::outside;
  const char* from = g.measured_delta_from == "energies" ? "from the energies" : "as stated";
  g.reason = fmt::format("ΔE {:+.2f} % ({}) vs {:+.2f} %, {} ({}), ± {:g}·{:.2f}: {}", delta, from, ref.value, ref.what,
                         context, g.k, ref.resid_std_pct, inside ? "inside the band" : "outside the band");
}

std::string anchors_what(std::size_t count, double params_b, const std::string& whose) {
  return fmt::format("the mean of {} {} at {:g} B", count, whose, params_b);
}

// Our reference: the curve's own points at that size (one session, unless the caller pooled), else the
// curve inside its measured range.
void grade_against_curve(GradeResult& g, const CurveKey& key, double params_b, double delta, const Evidence& evidence) {
  const Curve* curve = evidence.curves.find(key);
  if (curve == nullptr) {
    g.reason = "no curve for " + key_text(key);
    return;
  }
  g.curve = key;
  g.curve_session = curve->session_label;
  if (curve->fit.resid_std_pct <= 0) {
    g.reason = "the curve has no residual scale (exact fit through its points)";
    return;
  }
  Reference ref{0.0, curve->fit.resid_std_pct, ""};
  for (const FitPoint& p : curve->fit.points) {
    if (!checker_same_size(p.params_b, params_b)) continue;
    g.anchors.push_back(GradeAnchor{p.params_b, p.delta_pct, p.n, p.model + " (session " + p.session_id + ")"});
    ref.value += p.delta_pct;
  }
  if (curve->fit.covers(params_b)) g.curve_delta_pct = evaluate_curve(curve->fit.params, params_b);
  if (!g.anchors.empty()) {
    g.reference = "anchors";
    ref.value /= static_cast<double>(g.anchors.size());
    ref.what = anchors_what(g.anchors.size(), params_b, g.anchors.size() == 1 ? "measured point" : "measured points");
  } else if (!g.curve_delta_pct) {
    g.measured_delta_pct = delta;
    g.reason = fmt::format("{:g} B is outside the curve's measured range {:g}–{:g} B", params_b, curve->fit.range_min_b,
                           curve->fit.range_max_b);
    return;
  } else {
    g.reference = "curve";
    ref.value = *g.curve_delta_pct;
    ref.what = fmt::format("the curve at {:g} B", params_b);
  }
  grade_against(g, delta, ref, key_text(key) + ", session " + curve->session_label);
}

// The gate both rule sets share: a GPU energy measurement of a quantized precision, with a size.
std::optional<std::string> ungradeable(const report::EnergyReport& r) {
  if (auto why = report::why_not_gpu_measured(r)) return "not a measurement to grade: " + *why;
  if (is_baseline_report(r)) {
    return fmt::format("the report is its run's baseline ({}): it has no ΔE of its own", r.workload.precision);
  }
  if (!r.workload.params_b || !std::isfinite(*r.workload.params_b) || *r.workload.params_b <= 0) {
    return "the report has no model size (workload.params_b)";
  }
  return std::nullopt;
}

GradeResult started(const report::EnergyReport& r, GradingRules rules, double k) {
  GradeResult g = not_gradeable("", rules, k);
  g.stated_delta_pct = r.results.vs_fp16_energy_pct;
  if (auto disagreement = report::stated_delta_disagreement(r)) g.warnings.push_back(*disagreement);
  return g;
}

// "batch 16" or "concurrency 64": the level a report was measured at, in words.
std::string load_level_text(const report::Workload& w) {
  return fmt::format("{} {}", w.concurrency ? "concurrency" : "batch", w.load_level());
}

}  // namespace

std::string_view to_string(Grade grade) noexcept {
  switch (grade) {
    case Grade::inside: return "inside";
    case Grade::outside: return "outside";
    case Grade::not_gradeable: return "not_gradeable";
  }
  return "not_gradeable";
}

std::string_view to_string(GradingRules rules) noexcept {
  return rules == GradingRules::published ? "published" : "ecocompute";
}

Result<GradingRules> parse_grading_rules(std::string_view text) {
  if (text == "ecocompute") return GradingRules::ecocompute;
  if (text == "published") return GradingRules::published;
  return unexpected(ErrorCode::invalid_argument,
                    "unknown grading rules '" + std::string(text) + "' (ecocompute or published)");
}

std::string_view describe(GradingRules rules) noexcept {
  if (rules == GradingRules::published) {
    return "published (the published checker, ecocompute-mlcube tools/check_regression.py): the stated "
           "vs_fp16_energy_pct against the mean of the published anchors at that size, pooled over sessions, else "
           "the published curve at any size (hopper borrows ampere's); band ± k·resid_std; measured means "
           "basis measured and measurement_source direct-nvml";
  }
  return "ecocompute (ours): ΔE recomputed from the report's energies, against the same-size points of one "
         "session's curve (sessions never pooled), else that curve inside its measured size range; band ± "
         "k·resid_std of that fit. The published checker (--rules published) grades the stated ΔE against the "
         "mean of the published anchors at that size pooled over sessions, else the published curve at any size";
}

int GradeResult::exit_code() const noexcept {
  switch (grade) {
    case Grade::inside: return 0;
    case Grade::outside: return 1;
    case Grade::not_gradeable: return 2;
  }
  return 2;
}

GradeResult not_gradeable(std::string reason, GradingRules rules, double k) {
  GradeResult g;
  g.rules = rules;
  g.k = k;
  g.reason = std::move(reason);
  return g;
}

GradeResult grade_report(const report::EnergyReport& r, const Evidence& evidence, double k) {
  GradeResult g = started(r, GradingRules::ecocompute, k);
  if (auto why = ungradeable(r)) {
    g.reason = *why;
    return g;
  }
  // The curves and their points are batch 1: a batch-16 ΔE graded against them would call a real
  // batch effect a regression.
  if (r.workload.load_level() != 1) {
    g.reason = "measured at " + load_level_text(r.workload) +
               ": the curves are batch-1 measurements, so there is no reference at that level";
    return g;
  }
  if (auto recomputed = r.delta_from_energies()) {
    g.measured_delta_pct = recomputed;
    g.measured_delta_from = "energies";
  } else if (r.results.vs_fp16_energy_pct) {
    g.measured_delta_pct = r.results.vs_fp16_energy_pct;
    g.measured_delta_from = "stated";
  } else {
    g.reason = "the report has no ΔE vs its baseline (no energies, no vs_fp16_energy_pct)";
    return g;
  }
  auto arch = parse_architecture(r.system_under_test.gpu_arch);
  if (!arch) {
    g.reason = "system_under_test.gpu_arch: " + arch.error().message();
    return g;
  }
  const CurveKey key{*arch, engine_name_of(r), canonical_precision(r.workload.precision)};
  grade_against_curve(g, key, *r.workload.params_b, *g.measured_delta_pct, evidence);
  return g;
}

GradeResult grade_report_published(const report::EnergyReport& r, const PublishedReference& reference, double k) {
  GradeResult g = started(r, GradingRules::published, k);
  if (auto why = ungradeable(r)) {
    g.reason = *why;
    return g;
  }
  if (!r.results.vs_fp16_energy_pct) {
    g.reason = "no vs_fp16_energy_pct (was an FP16 baseline measured?)";
    return g;
  }
  g.measured_delta_pct = r.results.vs_fp16_energy_pct;
  g.measured_delta_from = "stated";
  if (r.workload.load_level() != 1) {
    g.warnings.push_back("measured at " + load_level_text(r.workload) +
                         ": the published checker does not look at the batch, and its anchors and curves are batch 1");
  }
  const std::string& arch = r.system_under_test.gpu_arch;
  const std::string& precision = r.workload.precision;
  if (arch.empty() || precision.empty()) {
    g.reason = "the report is missing gpu_arch or precision";
    return g;
  }
  const PublishedCurve* curve = reference.find(arch, precision);
  std::string curve_arch = arch;
  if (curve == nullptr) {
    if (auto lender = reference.lender_of(arch)) {
      curve = reference.find(*lender, precision);
      curve_arch = *lender;
      if (curve != nullptr) g.warnings.push_back(arch + " has no measurements of its own; using the " + *lender + " curve");
    }
  }
  if (curve == nullptr) {
    g.reason = "no published " + arch + "/" + precision + " curve to check against";
    return g;
  }
  const double params_b = *r.workload.params_b;
  g.curve = CurveKey{curve_arch, std::string(published_engine), precision};
  g.curve_session = reference.source;
  g.curve_delta_pct = evaluate_curve(curve->params, params_b);
  Reference ref{0.0, curve->resid_std_pct, ""};
  for (const PublishedAnchor& a : curve->anchors) {
    if (!checker_same_size(a.params_b, params_b)) continue;
    g.anchors.push_back(GradeAnchor{a.params_b, a.delta_pct, a.n, a.gpu + (a.model.empty() ? "" : " " + a.model)});
    ref.value += a.delta_pct;
  }
  if (!g.anchors.empty()) {
    g.reference = "anchors";
    ref.value /= static_cast<double>(g.anchors.size());
    ref.what = anchors_what(g.anchors.size(), params_b, g.anchors.size() == 1 ? "published anchor" : "published anchors");
  } else {
    g.reference = "curve";
    ref.value = *g.curve_delta_pct;
    ref.what = fmt::format("the published curve at {:g} B (no anchor at this size)", params_b);
  }
  if (const auto differs = r.software.find("differs_from_reference_pins");
      differs != r.software.end() && differs->is_array() && !differs->empty()) {
    g.warnings.push_back("not the published pins (" + differs->dump() +
                         "): part of any residual is the software, not the GPU");
  }
  grade_against(g, *g.measured_delta_pct, ref, curve_arch + " " + precision);
  return g;
}

GradeResult grade_point(const GradePoint& point, const Evidence& evidence, double k) {
  GradeResult g = not_gradeable("", GradingRules::ecocompute, k);
  if (point.basis != Basis::measured) {
    g.reason = "not a measurement to grade: the point's basis is " + std::string(to_string(point.basis));
    return g;
  }
  if (!std::isfinite(point.params_b) || point.params_b <= 0) {
    g.reason = "the point has no model size (params_b)";
    return g;
  }
  if (!std::isfinite(point.delta_pct)) {
    g.reason = "the point has no ΔE vs FP16";
    return g;
  }
  g.measured_delta_from = "stated";
  g.stated_delta_pct = point.delta_pct;
  g.warnings.push_back("a share link's point carries no measurement_source: its basis is taken as the link states it");
  grade_against_curve(g, CurveKey{point.gpu_arch, point.engine, point.precision}, point.params_b, point.delta_pct,
                      evidence);
  return g;
}

void to_json(Json& j, const GradeResult& g) {
  Json anchors = Json::array();
  for (const GradeAnchor& a : g.anchors) {
    anchors.push_back(Json{{"params_b", a.params_b}, {"delta_pct", a.delta_pct}, {"n", a.n}, {"label", a.label}});
  }
  j = Json{{"grade", to_string(g.grade)},
           {"exit_code", g.exit_code()},
           {"reason", g.reason},
           {"rules", to_string(g.rules)},
           {"rules_note", describe(g.rules)},
           {"measured_delta_pct", json_or_null(g.measured_delta_pct)},
           {"measured_delta_from", text_or_null(g.measured_delta_from)},
           {"stated_delta_pct", json_or_null(g.stated_delta_pct)},
           {"reference", text_or_null(g.reference)},
           {"anchors", std::move(anchors)},
           {"expected_delta_pct", json_or_null(g.expected_delta_pct)},
           {"curve_delta_pct", json_or_null(g.curve_delta_pct)},
           {"band", g.band_low_pct ? Json::array({*g.band_low_pct, *g.band_high_pct}) : Json(nullptr)},
           {"k", g.k},
           {"curve", json_or_null(g.curve)},
           {"curve_session", g.curve_session},
           {"warnings", g.warnings}};
}

std::string to_text(const GradeResult& g) {
  std::string out = fmt::format("{}: {}\n  rules: {}\n", to_string(g.grade), g.reason, describe(g.rules));
  for (const std::string& w : g.warnings) out += "  warning: " + w + "\n";
  return out;
}

}  // namespace ecocompute::data
