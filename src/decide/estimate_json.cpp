// The estimate as JSON (published /v1/estimate fields plus ours) and as terminal text.
#include <fmt/format.h>

#include "decide/estimate.hpp"

#include "data/quality_text.hpp"
#include "util/precision.hpp"

namespace ecocompute::decide {
namespace {

constexpr const char* kIntervalKind = "95 % predictive interval for a new card of the GPU model (decision model)";

Json band_json(const Figure& d) {
  return Json{{"low_pct", d.low},
              {"high_pct", d.high},
              {"half_width_pct", std::max(d.high - d.value, d.value - d.low)},
              {"log_sd", d.log_sd},
              {"between_cards_log_sd", d.card_sd},
              {"variance_uncertainty_log_sd", d.log_variance_sd},
              {"quantile", d.quantile},
              {"extent", to_string(d.extent)},
              {"calibration_factor", d.interval_factor()},
              {"calibration_held_out_answers", d.calibration ? Json(d.calibration->n) : Json(nullptr)},
              {"rule", "mean ± calibration_factor × quantile × log_sd on the log energy ratio, the quantile widened for the uncertainty "
                       "of the variances, the factor that of held-out answers of the same basis and extent (docs/decision-layer.md, "
                       "\"The model\" and \"Calibration\")"}};
}

std::string calibration_text(const Figure& d) {
  if (!d.calibration) return "  interval: the model's own (no calibration of this evidence)\n";
  const ClassFactor& c = *d.calibration;
  if (!c.factor) {
    return fmt::format("  interval: the model's own ({} held-out answers of this class, {} / {}: too few to calibrate)\n", c.n,
                       to_string(c.basis), to_string(c.extent));
  }
  const bool own = c.basis == d.basis.basis && c.extent == d.extent;
  return fmt::format("  interval: the model's × {:.2f}, the factor {} held-out answers of {} ({} / {}) needed to hold 95 %\n", *c.factor, c.n,
                     own ? "this class" : "the widest class on more evidence (this one has too few)", to_string(c.basis),
                     to_string(c.extent));
}

Json energy_json(const Prediction& p) {
  if (!p.energy || !p.fp16_energy) return nullptr;
  return Json{{"fp16_mj_per_token", p.fp16_energy->value},
              {"fp16_mj_per_token_ci", Json::array({p.fp16_energy->low, p.fp16_energy->high})},
              {"mj_per_token", p.energy->value},
              {"mj_per_token_ci", Json::array({p.energy->low, p.energy->high})},
              {"method", "the decision model's F16 energy × its energy ratio, for a card of this GPU model"},
              {"label", to_string(p.energy->basis.basis)},
              {"basis", to_string(p.energy->basis.basis)},
              {"basis_detail", p.energy->basis},
              {"fp16_basis", to_string(p.fp16_energy->basis.basis)},
              {"fp16_basis_detail", p.fp16_energy->basis}};
}

}  // namespace

void to_json(Json& j, const Anchor& a) {
  j = Json{{"N", a.params_b}, {"dE", a.delta_pct},     {"model", a.model},     {"gpu", a.gpu}, {"n", a.n},
           {"params_b", a.params_b}, {"delta_pct", a.delta_pct}, {"batch", a.batch}, {"session", a.session}};
  if (a.context > 0) j["context"] = a.context;
}

void to_json(Json& j, const EstimateResponse& r) {
  const Prediction& p = r.prediction;
  const Query& q = p.query;
  j = Json{{"input", r.input},
           {"delta_pct", json_or_null(r.delta_pct)},
           {"ci", r.ci_low_pct ? Json::array({*r.ci_low_pct, *r.ci_high_pct}) : Json(nullptr)},
           {"ci_kind", kIntervalKind},
           {"basis", to_string(r.basis)},
           {"confidence", r.confidence},
           {"recommendation", r.recommendation},
           {"verdict", r.verdict},
           {"crossover_b", json_or_null(r.crossover_b)},
           {"anchors", r.anchors},
           {"arch_used", p.arch_used},
           {"modelled", p.modelled},
           {"weight_gb", weight_gb(q.params_b, q.precision)},
           {"weight_gb_fp16", weight_gb(q.params_b, *parse_precision("FP16"))},
           {"notes", r.notes},
           {"engine", q.engine},
           {"gpu", p.gpu},
           {"band", p.delta ? band_json(*p.delta) : Json(nullptr)},
           {"memory", p.memory}};
  j["figure_basis"] = Json{{"delta_pct", p.delta ? Json(p.delta->basis) : Json(nullptr)},
                           {"energy", p.energy ? Json(p.energy->basis) : Json(nullptr)},
                           {"fp16_energy", p.fp16_energy ? Json(p.fp16_energy->basis) : Json(nullptr)},
                           {"weight_gb", data::modelled_basis("N × bits per weight / 8 (weights only)")},
                           {"memory", p.memory.basis}};
  j["quality_cost"] = r.quality_cost;
  j["energy_estimate"] = energy_json(p);
}

std::string to_text(const EstimateResponse& r) {
  const Prediction& p = r.prediction;
  std::string out = r.verdict + "\n";
  const Figure& d = *p.delta;
  out += fmt::format("  ΔE vs FP16: {:+.2f} %  95 % interval for your card: {:+.2f} … {:+.2f} %\n", d.value, d.low, d.high);
  out += fmt::format("  ΔE basis: {} — {}\n", to_string(d.basis.basis), d.basis.label);
  out += fmt::format("  uncertainty (log scale): sd {:.4f}, between cards {:.4f}; quantile {:.2f} for the variances' own uncertainty\n",
                     d.log_sd, d.card_sd, d.quantile);
  out += calibration_text(d);
  out += fmt::format("  confidence: {}   recommendation: {}\n", r.confidence, r.recommendation);
  out += fmt::format("  answered for: {} ({})   engine: {}   crossover: {}\n", p.gpu, p.arch_used, p.query.engine,
                     r.crossover_b ? fmt::format("{:.2f} B", *r.crossover_b) : "none inside the measured sizes");
  out += fmt::format("  memory: {:.1f} GB (weights {:.1f} + KV cache {:.1f}){}; F16 {:.1f} GB{} [modelled]\n", p.memory.total_gb, p.memory.weights_gb,
                     p.memory.kv_cache_gb, p.memory.fits ? " fits" : " does NOT fit", p.memory.fp16_total_gb, p.memory.fp16_fits ? " fits" : " does NOT fit");
  if (p.energy && p.fp16_energy) {
    out += fmt::format("  energy per token: {:.0f} mJ (95 % {:.0f} … {:.0f}); F16 {:.0f} mJ (95 % {:.0f} … {:.0f})\n", p.energy->value, p.energy->low,
                       p.energy->high, p.fp16_energy->value, p.fp16_energy->low, p.fp16_energy->high);
    out += fmt::format("  energy basis: {} — {}\n", to_string(p.energy->basis.basis), p.energy->basis.label);
    out += fmt::format("  F16 energy basis: {} — {}\n", to_string(p.fp16_energy->basis.basis), p.fp16_energy->basis.label);
  }
  out += "  quality: " + data::to_text(r.quality_cost) + " [" + std::string(to_string(r.quality_cost.basis)) + "]\n";
  if (!r.quality_cost.note.empty()) out += "  quality note: " + r.quality_cost.note + "\n";
  for (const Anchor& a : r.anchors) {
    const std::string context = a.context > 0 ? fmt::format(" context {}", a.context) : "";
    out += fmt::format("  measured: {:g} B batch {}{} {:+.2f} % n={} {} ({}, {})\n", a.params_b, a.batch, context, a.delta_pct, a.n, a.model,
                       a.gpu, a.session);
  }
  for (const std::string& n : r.notes) out += "  note: " + n + "\n";
  return out;
}

}  // namespace ecocompute::decide
