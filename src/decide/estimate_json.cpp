// The estimate as JSON (published /v1/estimate fields plus ours) and as terminal text.
#include <fmt/format.h>

#include "decide/estimate.hpp"

#include "data/quality_text.hpp"
#include "util/precision.hpp"

namespace ecocompute::decide {
namespace {

constexpr const char* kIntervalKind = "95 % predictive interval for a new card of the GPU model (decision model)";

void write_band(JsonSink& sink, const Figure& d) {
  sink.begin_object();
  sink.field("between_cards_log_sd", d.card_sd);
  sink.key("calibration_class_factor");
  if (d.calibration && d.calibration->factor) {
    sink.value(*d.calibration->factor);
  } else {
    sink.null();
  }
  sink.field("calibration_factor", d.interval_factor());
  sink.key("calibration_held_out_answers");
  if (d.calibration) {
    sink.value(d.calibration->n);
  } else {
    sink.null();
  }
  sink.key("calibration_nearest_measured_b");  // set where the factor is read between this size's class and that size's
  if (d.nearest_calibration) {
    sink.value(d.size_place.nearest_params_b);
  } else {
    sink.null();
  }
  sink.field("extent", to_string(d.extent));
  sink.field("half_width_pct", std::max(d.high - d.value, d.value - d.low));
  sink.field("high_pct", d.high);
  sink.field("log_sd", d.log_sd);
  sink.field("low_pct", d.low);
  sink.field("quantile", d.quantile);
  sink.field("rule", "mean ± calibration_factor × quantile × log_sd on the log energy ratio, the quantile widened for the uncertainty "
                     "of the variances, the factor that of held-out answers of the same basis and extent; nearer a measured size than "
                     "any of them, read on a line in ln N from the factor at that size (docs/decision-layer.md, \"The model\" and "
                     "\"Calibration\")");
  sink.field("variance_uncertainty_log_sd", d.log_variance_sd);
  sink.end_object();
}

void write_pair(JsonSink& sink, double low, double high) {
  sink.begin_array();
  sink.value(low);
  sink.value(high);
  sink.end_array();
}

/// The basis of a figure the answer may lack (null then).
void write_basis(JsonSink& sink, const std::optional<Figure>& f) {
  if (f) {
    data::write_json(sink, f->basis);
  } else {
    sink.null();
  }
}

std::string calibration_text(const Figure& d) {
  if (!d.calibration) return "  interval: the model's own (no calibration of this evidence)\n";
  const ClassFactor& c = *d.calibration;
  if (!c.factor) {
    return fmt::format("  interval: the model's own ({} held-out answers of this class, {} / {}: too few to calibrate)\n", c.n,
                       to_string(c.basis), to_string(c.extent));
  }
  const bool own = c.basis == d.basis.basis && c.extent == d.extent;
  if (d.nearest_calibration && d.nearest_calibration->factor) {
    const ClassFactor& n = *d.nearest_calibration;
    return fmt::format("  interval: the model's × {:.2f}, read between × {:.2f} at the measured {:.4g} B ({} / {}) and × {:.2f} of {} "
                       "held-out answers of this class ({} / {}), none of them as near a measured size ({:.3f} in ln N, {:.0f} % of "
                       "the way)\n",
                       d.factor, *n.factor, d.size_place.nearest_params_b, to_string(n.basis), to_string(n.extent), *c.factor, c.n,
                       to_string(c.basis), to_string(c.extent), d.size_place.distance, 100 * d.calibration_weight);
  }
  return fmt::format("  interval: the model's × {:.2f}, the factor {} held-out answers of {} ({} / {}) needed to hold 95 %\n", *c.factor, c.n,
                     own ? "this class" : "the widest class on more evidence (this one has too few)", to_string(c.basis),
                     to_string(c.extent));
}

void write_energy(JsonSink& sink, const Prediction& p) {
  if (!p.energy || !p.fp16_energy) {
    sink.null();
    return;
  }
  sink.begin_object();
  sink.field("basis", to_string(p.energy->basis.basis));
  sink.key("basis_detail");
  data::write_json(sink, p.energy->basis);
  sink.field("fp16_basis", to_string(p.fp16_energy->basis.basis));
  sink.key("fp16_basis_detail");
  data::write_json(sink, p.fp16_energy->basis);
  sink.field("fp16_mj_per_token", p.fp16_energy->value);
  sink.key("fp16_mj_per_token_ci");
  write_pair(sink, p.fp16_energy->low, p.fp16_energy->high);
  sink.field("label", to_string(p.energy->basis.basis));
  sink.field("method", "the decision model's F16 energy × its energy ratio, for a card of this GPU model");
  sink.field("mj_per_token", p.energy->value);
  sink.key("mj_per_token_ci");
  write_pair(sink, p.energy->low, p.energy->high);
  sink.end_object();
}

void write_figure_bases(JsonSink& sink, const Prediction& p) {
  sink.begin_object();
  sink.key("delta_pct");
  write_basis(sink, p.delta);
  sink.key("energy");
  write_basis(sink, p.energy);
  sink.key("fp16_energy");
  write_basis(sink, p.fp16_energy);
  sink.key("memory");
  data::write_json(sink, p.memory.basis);
  sink.key("weight_gb");
  data::write_json(sink, data::modelled_basis("N × bits per weight / 8 (weights only)"));
  sink.end_object();
}

}  // namespace

void write_json(JsonSink& sink, const Anchor& a) {
  // N and dE are the published anchor's names for params_b and delta_pct.
  sink.begin_object();
  sink.field("N", a.params_b);
  sink.field("batch", a.batch);
  if (a.context > 0) sink.field("context", a.context);
  sink.field("dE", a.delta_pct);
  sink.field("delta_pct", a.delta_pct);
  sink.field("gpu", a.gpu);
  sink.field("model", a.model);
  sink.field("n", a.n);
  sink.field("params_b", a.params_b);
  sink.field("session", a.session);
  sink.end_object();
}

void write_json(JsonSink& sink, const EstimateResponse& r) {
  const Prediction& p = r.prediction;
  const Query& q = p.query;
  sink.begin_object();
  sink.key("anchors");
  sink.begin_array();
  for (const Anchor& a : r.anchors) write_json(sink, a);
  sink.end_array();
  sink.field("arch_used", p.arch_used);
  sink.key("band");
  if (p.delta) {
    write_band(sink, *p.delta);
  } else {
    sink.null();
  }
  sink.field("basis", to_string(r.basis));
  sink.key("ci");
  if (r.ci_low_pct) {
    write_pair(sink, *r.ci_low_pct, *r.ci_high_pct);
  } else {
    sink.null();
  }
  sink.field("ci_kind", kIntervalKind);
  sink.field("confidence", r.confidence);
  sink.field("crossover_b", r.crossover_b);
  sink.field("delta_pct", r.delta_pct);
  sink.key("energy_estimate");
  write_energy(sink, p);
  sink.field("engine", q.engine);
  sink.key("figure_basis");
  write_figure_bases(sink, p);
  sink.field("gpu", p.gpu);
  sink.field("input", r.input);
  sink.key("memory");
  write_json(sink, p.memory);
  sink.field("modelled", p.modelled);
  sink.field("notes", r.notes);
  sink.key("quality_cost");
  data::write_json(sink, r.quality_cost);
  sink.field("recommendation", r.recommendation);
  sink.field("verdict", r.verdict);
  sink.field("weight_gb", weight_gb(q.params_b, q.precision));
  sink.field("weight_gb_fp16", weight_gb(q.params_b, *parse_precision("FP16")));
  sink.end_object();
}

void to_json(Json& j, const Anchor& a) { to_document(j, a); }

void to_json(Json& j, const EstimateResponse& r) { to_document(j, r); }

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
