// Grader: a measured ΔE against the decision model's predictive interval (our rules) or the published
// checker's anchors and curve (its rules).
#include "decide/grader.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "data/dataset_import.hpp"
#include "data/gpu_spec.hpp"
#include "data/quality_text.hpp"
#include "decide/model_point.hpp"
#include "decide/prediction.hpp"
#include "decide/quality_answer.hpp"
#include "report/measurement_claim.hpp"
#include "report/stated_delta.hpp"

namespace ecocompute::decide {

using data::PublishedAnchor;
using data::PublishedCurve;
using data::evaluate_curve;

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

// The question a report (or a share link's point) asks of the model: its GPU when it names one
// the table knows, else its architecture; its engine, format, size, batch and context.
Query question_of(const std::string& gpu, const CurveKey& key, double params_b, int batch, int context = defaults::context) {
  Query q;
  q.params_b = params_b;
  q.arch = key.gpu_arch;
  if (auto spec = data::find_gpu(gpu); !gpu.empty() && spec && spec->arch == key.gpu_arch) q.gpu = *spec;
  q.engine = key.engine;
  if (auto p = parse_precision(key.precision)) q.precision = *p;
  q.batch = batch;
  q.context = context;
  return q;
}

// Our reference: the model's 95 % predictive interval for a new card at the report's place, from the
// evidence without the report's own session (a report in the store would otherwise grade itself).
void grade_against_model(GradeResult& g, const CurveKey& key, const Query& q, double delta, const std::string& session_id,
                         const Evidence& evidence) {
  g.curve = key;
  g.measured_delta_pct = delta;
  Evidence rest;  // the evidence without the report's own session, when it holds that session
  const Evidence* use = &evidence;
  const bool left_out = !session_id.empty() && evidence.session(session_id) != nullptr;
  if (left_out) {
    rest.sessions = evidence.sessions;
    rest.session_positions = evidence.session_positions;
    rest.session_by_id = evidence.session_by_id;
    rest.sessions_read = evidence.sessions_read;
    rest.model = std::make_shared<const DecisionModel>(evidence.model->without_session(session_id));
    // The factors were computed from answers with their own session (or size, or batch) held out: this one.
    rest.calibration = evidence.calibration;
    use = &rest;
  }
  // The question estimate would be asked (no borrow but the published one): one answer for both.
  auto p = predict(*use, q);
  if (!p || !p->delta) {
    g.reason = "no reference for " + key_text(key) + ": " + (p ? std::string("no ΔE") : p.error().message());
    return;
  }
  const Figure& d = *p->delta;
  g.reference = "model";
  g.expected_delta_pct = d.value;
  g.band_low_pct = d.low;
  g.band_high_pct = d.high;
  g.k = d.quantile;
  g.reference_basis = d.basis;
  const FamilyFit* family = use->model->ratio.family_of(key.engine);
  for (const Location& l : family != nullptr ? family->locations() : std::vector<Location>{}) {
    if (l.point.key != model_key(key.engine, key.precision) || l.place.arch != key.gpu_arch || l.place.params_b != q.params_b ||
        l.place.batch != q.batch || l.point.context != context_beyond_baseline(q.context)) continue;
    for (std::size_t i = 0; i < l.values.size(); ++i) {
      g.anchors.push_back(GradeAnchor{q.params_b, delta_of_log(l.values[i]), 1, l.place.gpu + " (session " + use->session_label(l.sessions[i]) + ")"});
    }
  }
  const bool inside = delta >= d.low && delta <= d.high;
  g.grade = inside ? Grade::inside : Grade::outside;
  const char* from = g.measured_delta_from == "energies" ? "from the energies" : "as stated";
  g.reason = fmt::format("ΔE {:+.2f} % ({}) vs the model's {:+.2f} % [{:+.2f}, {:+.2f}] for a new card ({}, {}: {}{}): {}", delta, from,
                         d.value, d.low, d.high, key_text(key), to_string(d.basis.basis), d.basis.label,
                         left_out ? "; the report's own session left out" : "", inside ? "inside the interval" : "outside the interval");
}

// The gate both rule sets share: a GPU energy measurement of a quantized precision, with a size.
std::optional<std::string> ungradeable(const report::EnergyReport& r) {
  if (auto why = report::why_not_gpu_measured(r)) return "not a measurement to grade: " + *why;
  if (data::is_baseline_report(r)) {
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
  return "ecocompute (ours): ΔE recomputed from the report's energies, against the decision model's 95 % predictive "
         "interval for a new card at the report's GPU, engine, format, size and batch (the interval estimate answers "
         "with), the report's own session left out of the evidence. The published checker (--rules published) grades "
         "the stated ΔE against the mean of the published anchors at that size pooled over sessions, else the "
         "published curve at any size, ± k·resid_std";
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

GradeResult grade_report(const report::EnergyReport& r, const Evidence& evidence) {
  GradeResult g = started(r, GradingRules::ecocompute, defaults::check_band_k);
  if (auto why = ungradeable(r)) {
    g.reason = *why;
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
  auto arch = data::parse_architecture(r.system_under_test.gpu_arch);
  if (!arch) {
    g.reason = "system_under_test.gpu_arch: " + arch.error().message();
    return g;
  }
  const CurveKey key{*arch, data::engine_name_of(r), data::canonical_precision(r.workload.precision)};
  const std::string session = data::report_session(r, "the graded report").id;
  const auto prompt = r.workload.prompt_tokens.value_or(0);
  const int context = prompt > kBaselineContext ? static_cast<int>(std::min<long long>(prompt, 1LL << 30)) : defaults::context;
  Query q = question_of(r.system_under_test.gpu, key, *r.workload.params_b, r.workload.load_level(), context);
  grade_against_model(g, key, q, *g.measured_delta_pct, session, evidence);
  q.model = r.workload.model_name;
  g.quality = report_quality(r, evidence, q);
  return g;
}

namespace {

// The published curve of an architecture and precision, else the one its published lender has (the
// warning says so); `curve_arch` is set to the architecture whose curve it is.
const PublishedCurve* published_curve_for(const PublishedReference& reference, const std::string& arch, const std::string& precision,
                                          std::string& curve_arch, GradeResult& g) {
  if (const PublishedCurve* own = reference.find(arch, precision)) return own;
  const auto lender = reference.lender_of(arch);
  if (!lender) return nullptr;
  const PublishedCurve* lent = reference.find(*lender, precision);
  if (lent == nullptr) return nullptr;
  curve_arch = *lender;
  g.warnings.push_back(arch + " has no measurements of its own; using the " + *lender + " curve");
  return lent;
}

}  // namespace

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
  std::string curve_arch = arch;
  const PublishedCurve* curve = published_curve_for(reference, arch, precision, curve_arch, g);
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

GradeResult grade_point(const GradePoint& point, const Evidence& evidence) {
  GradeResult g = not_gradeable("", GradingRules::ecocompute, defaults::check_band_k);
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
  const CurveKey key{point.gpu_arch, point.engine, point.precision};
  grade_against_model(g, key, question_of("", key, point.params_b, 1), point.delta_pct, "", evidence);
  if (g.reference == "model") g.quality = quality_answer(evidence, question_of("", key, point.params_b, 1));
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
           {"reference_basis", g.reference_basis ? Json(*g.reference_basis) : Json(nullptr)},
           {"warnings", g.warnings},
           {"quality_cost", g.quality ? Json(*g.quality) : Json(nullptr)}};
}

std::string to_text(const GradeResult& g) {
  std::string out = fmt::format("{}: {}\n  rules: {}\n", to_string(g.grade), g.reason, describe(g.rules));
  for (const std::string& w : g.warnings) out += "  warning: " + w + "\n";
  if (g.quality) out += "  quality: " + data::to_text(*g.quality) + " [" + std::string(data::to_string(g.quality->basis)) + "]\n";
  return out;
}

}  // namespace ecocompute::decide
