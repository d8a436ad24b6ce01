// Estimate: the decision model's prediction in the published /v1/estimate shape (see estimate.hpp).
#include "decide/estimate.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "data/gpu_spec.hpp"
#include "decide/model_point.hpp"
#include "decide/place_basis.hpp"
#include "decide/quality_answer.hpp"
#include "report/throttled_trials.hpp"
#include "util/precision.hpp"

namespace ecocompute::decide {
namespace {

std::string signed_pct(double v) { return fmt::format("{:+.1f} %", v); }

// Confidence from the basis alone: a measured place is known best, an interpolated one next, and
// anything extrapolated, borrowed or modelled least.
std::string basis_confidence(data::Basis basis) {
  if (basis == data::Basis::measured) return "high";
  if (basis == data::Basis::interpolated) return "medium";
  return "low";
}

// The measured places of the format on the architectures that answer, at the asked batch (else batch
// 1) and context (else the baseline's): the points shown beside the estimate, one per place (its
// sessions' geometric mean and their number), read from the fitted model so that a store of any size
// shows them at the same cost.
std::vector<Anchor> anchors_of(const Evidence& evidence, const Query& q, const std::string& arch_used) {
  const FamilyFit* family = evidence.model->ratio.family_of(q.engine);
  if (family == nullptr) return {};
  const std::string key = model_key(q.engine, std::string(q.precision.name));
  auto places_at = [&](int context) {
    std::vector<const Location*> out;
    for (const Location* l : family->places_of(key)) {
      if (l->point.context == context && arch_used.find(l->place.arch) != std::string::npos) out.push_back(l);
    }
    return out;
  };
  std::vector<const Location*> places = places_at(context_beyond_baseline(q.context));
  if (places.empty()) places = places_at(0);
  const bool at_batch = std::any_of(places.begin(), places.end(), [&](const Location* l) { return l->place.batch == q.batch; });
  std::vector<Anchor> out;
  for (const Location* l : places) {
    if (l->place.batch != (at_batch ? q.batch : 1)) continue;
    double sum = 0;
    for (double v : l->values) sum += v;
    const std::size_t n = l->values.size();
    const std::string who = n == 1 ? evidence.session_label(l->sessions.front()) : fmt::format("{} sessions", n);
    out.push_back(Anchor{l->place.params_b, delta_of_log(sum / static_cast<double>(n)), static_cast<int>(n), l->place.batch, l->model,
                         who, l->place.gpu, l->point.context});
  }
  return out;
}

// Notes naming throttled trials counted behind a measured figure (14.8 B F16 ran at the H200's power
// limit; ΔE there is against that F16).
void note_throttled(EstimateResponse& out, const Query& q, const Evidence& evidence) {
  for (const data::DataRow& r : evidence.key_rows(q.engine, std::string(q.precision.name)).throttled) {
    const bool here = r.gpu_arch == q.arch && r.params_b == q.params_b && r.batch_size == q.batch &&
                      (r.context_tokens > 0 ? r.context_tokens == q.context : q.context <= kBaselineContext);
    const std::size_t at = r.note.find(report::kThrottledTrialsCounted);
    if (here && at != std::string::npos) {
      out.notes.push_back(fmt::format("session {}: {} The figure is against the baseline as the throttled card ran it.",
                                      evidence.session_label(r.session_id), r.note.substr(at)));
    }
  }
}

// A batch and context whose KV cache does not fit beside weights that do is not a question one GPU can
// run: an error that says what fits. Weights that do not fit at all are answered, with the note.
Result<void> check_batch_and_context_fit(const MemoryFit& m, const Query& q) {
  if (m.fits || m.gpu_memory_gb <= 0 || m.weights_gb >= m.gpu_memory_gb) return {};
  const int batch = largest_fitting_batch(m, q.batch);
  const double kv_per_token_gb = m.kv_cache_gb / (static_cast<double>(q.batch) * q.context);
  const auto context = static_cast<long long>(std::floor((m.gpu_memory_gb - m.weights_gb) / kv_per_token_gb));
  const std::string fitting = batch >= 1 ? fmt::format("at most batch {} fits at context {}", batch, q.context)
                                         : fmt::format("not even batch 1 fits at context {}; at most context {} at batch 1", q.context, context);
  return unexpected(ErrorCode::invalid_argument,
                    fmt::format("batch {} at context {} needs {:.1f} GB of KV cache beside {:.1f} GB of {} weights, and the {} has {:g} GB: "
                                "{} (weights + KV cache; runtime buffers come on top)",
                                q.batch, q.context, m.kv_cache_gb, m.weights_gb, q.precision.name, m.gpu, m.gpu_memory_gb, fitting));
}

std::string query_size_text(const Query& q) {
  return q.active_params_b ? fmt::format("{:g} B model ({:g} B active)", q.params_b, *q.active_params_b) : fmt::format("{:g} B model", q.params_b);
}

void write_verdict(EstimateResponse& out, const Query& q) {
  const Figure& d = *out.prediction.delta;
  out.verdict = fmt::format("{} {} {:.1f} % energy per token (95 % interval for your card {} … {}) vs FP16 for a {} on {} "
                            "with {}: {} — {}.",
                            q.precision.name, d.value < 0 ? "saves" : "costs", std::abs(d.value), signed_pct(d.low), signed_pct(d.high),
                            query_size_text(q), q.gpu ? q.gpu->name : q.arch, q.engine, to_string(d.basis.basis), d.basis.label);
  if (d.basis.basis != data::Basis::measured) out.verdict += " Not a measurement of this configuration: measure it to know.";
  if (!out.prediction.memory.fp16_fits || !out.prediction.memory.fits) out.verdict += " " + memory_note(out.prediction.memory, std::string(q.precision.name)) + ".";
}

Json echo(const Query& q, const Prediction& p) {
  return Json{{"params_b", q.params_b},        {"active_params_b", q.active_params_b ? Json(*q.active_params_b) : Json(nullptr)},
              {"arch", q.arch},   {"gpu", q.gpu ? q.gpu->name : std::string()},
              {"answered_for_gpu", p.gpu},     {"precision", std::string(q.precision.name)},
              {"batch", q.batch},              {"ctx", q.context}, {"engine", q.engine},
              {"model", q.model},              {"allow_borrow", q.allow_borrow},
              {"curve_source", kCurveSource}};
}

}  // namespace

std::string recommend(std::optional<double> ci_low_pct, std::optional<double> ci_high_pct) {
  if (!ci_low_pct || !ci_high_pct) return "depends";
  if (*ci_high_pct < 0) return "quantize";
  if (*ci_low_pct > 0) return "do_not_quantize";
  return "depends";
}

Result<EstimateResponse> estimate(const EstimateRequest& request, const Evidence& evidence) {
  auto q = resolve_estimate_request(request);
  if (!q) return q.error();
  auto prediction = predict(evidence, *q);
  if (!prediction) return prediction.error();
  if (auto fits = check_batch_and_context_fit(prediction->memory, *q); !fits) return fits.error();
  EstimateResponse out;
  out.prediction = std::move(*prediction);
  const Figure& d = *out.prediction.delta;
  out.input = echo(*q, out.prediction);
  out.delta_pct = d.value;
  out.ci_low_pct = d.low;
  out.ci_high_pct = d.high;
  out.basis = d.basis.basis;
  out.confidence = basis_confidence(d.basis.basis);
  out.recommendation = recommend(out.ci_low_pct, out.ci_high_pct);
  out.crossover_b = crossover_size(evidence, *q);
  out.anchors = anchors_of(evidence, *q, out.prediction.arch_used);
  out.notes = out.prediction.notes;
  if (out.basis == data::Basis::measured) note_throttled(out, *q, evidence);
  write_verdict(out, *q);
  out.quality_cost = quality_answer(evidence, *q);
  out.verdict += " " + quality_sentence(out.quality_cost);
  return out;
}

}  // namespace ecocompute::decide
