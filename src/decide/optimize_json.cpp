// The optimizer's JSON: the request read from /v1/optimize fields (the published ones plus ours) and
// the answer in the published shape (configurations with role, summary and basis per figure;
// alternatives with vs_recommended; the Pareto front) plus ours.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "data/engine_name.hpp"
#include "data/quality_text.hpp"
#include "decide/optimizer.hpp"
#include "data/request_fields.hpp"

namespace ecocompute::decide {

using data::Basis;
using data::RequestFields;

Result<OptimizeRequest> optimize_request_from_json(const Json& body) {
  if (!body.is_object()) return unexpected(ErrorCode::invalid_argument, "request body must be a JSON object");
  const RequestFields fields(body);
  if (auto known = fields.refuse_unknown({"params_b", "N", "model", "gpu", "arch", "engine", "objective", "precision",
                                          "precisions", "max_latency_ms", "max_vram_gb", "min_throughput",
                                          "max_delta_ppl_pct", "max_kld", "batch", "ctx", "context", "batches",
                                          "contexts", "allow_borrow"});
      !known) {
    return known.error();
  }
  OptimizeRequest r;
  auto size = fields.params_b();
  if (!size) return size.error();
  r.params_b = *size;
  std::optional<std::string> objective, precision;
  for (auto [key, field] : {std::pair{"model", &r.model}, std::pair{"gpu", &r.gpu}, std::pair{"arch", &r.arch},
                            std::pair{"engine", &r.engine}}) {
    auto v = fields.text(key);
    if (!v) return v.error();
    if (*v) *field = **v;
  }
  r.engine = data::canonical_engine_name(r.engine);
  for (auto [key, field] : {std::pair{"objective", &objective}, std::pair{"precision", &precision}}) {
    auto v = fields.text(key);
    if (!v) return v.error();
    *field = *v;
  }
  if (objective) {
    auto o = parse_objective(*objective);
    if (!o) return o.error();
    r.objective = *o;
  }
  for (auto [key, field] : {std::pair{"max_latency_ms", &r.max_latency_ms}, std::pair{"max_vram_gb", &r.max_vram_gb},
                            std::pair{"min_throughput", &r.min_throughput},
                            std::pair{"max_delta_ppl_pct", &r.max_delta_ppl_pct}, std::pair{"max_kld", &r.max_kld}}) {
    auto v = fields.number(key);
    if (!v) return v.error();
    *field = *v;
  }
  auto shape = fields.batch_and_context();
  if (!shape) return shape.error();
  r.batch = shape->batch;
  r.context = shape->context;
  auto precisions = fields.texts("precisions");
  if (!precisions) return precisions.error();
  if (*precisions) {
    r.precisions = **precisions;
  } else if (precision) {
    r.precisions = {*precision};  // the published single `precision`
  }
  for (auto [key, field] : {std::pair{"batches", &r.batches}, std::pair{"contexts", &r.contexts}}) {
    auto v = fields.wholes(key);
    if (!v) return v.error();
    if (*v) *field = **v;
  }
  auto borrow = fields.allow_borrow();
  if (!borrow) return borrow.error();
  r.allow_borrow = *borrow;
  return r;
}

namespace {

void write_pair_or_null(JsonSink& sink, const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b) {
    sink.null();
    return;
  }
  sink.begin_array();
  sink.value(*a);
  sink.value(*b);
  sink.end_array();
}

std::string summary(const Candidate& c) {
  std::string s = fmt::format("{}, batch={}, context={}", c.precision, c.batch, c.context);
  if (c.energy_mj_per_token) s += fmt::format(" -> {:.1f} J/1k tok", *c.energy_mj_per_token);
  s += fmt::format(", {:.1f} tok/s, {:.2f} ms/tok, {:.2f} GB", c.throughput_tok_s, c.latency_ms_per_token, c.vram_gb);
  s += fmt::format(" (energy {}; latency and memory modelled)", to_string(c.energy_basis.basis));
  return s;
}

std::optional<double> pct_of(double a, double b) {
  if (b == 0) return std::nullopt;
  return (a - b) / b * 100;
}

void write_basis_kinds(JsonSink& sink, Basis energy, Basis latency, Basis vram) {
  sink.begin_object();
  sink.field("energy", to_string(energy));
  sink.field("latency", to_string(latency));
  sink.field("vram", to_string(vram));
  sink.end_object();
}

void write_bases(JsonSink& sink, const Candidate& c) {
  sink.begin_object();
  sink.key("energy");
  data::write_json(sink, c.energy_basis);
  sink.key("latency");
  data::write_json(sink, c.latency_basis);
  sink.key("vram");
  data::write_json(sink, c.vram_basis);
  sink.end_object();
}

/// An alternative against the recommendation, in % of the recommendation's figure.
void write_versus(JsonSink& sink, const Candidate& c, const Candidate& best) {
  sink.begin_object();
  sink.field("energy_pct", c.relative_energy && best.relative_energy ? pct_of(*c.relative_energy, *best.relative_energy) : std::nullopt);
  sink.field("latency_pct", pct_of(c.latency_ms_per_token, best.latency_ms_per_token));
  sink.field("throughput_pct", pct_of(c.throughput_tok_s, best.throughput_tok_s));
  sink.field("vram_pct", pct_of(c.vram_gb, best.vram_gb));
  sink.end_object();
}

/// What a shown candidate has beside its figures: its role in the answer, a one-line summary, and for
/// an alternative its figures against the recommendation.
struct Shown {
  const char* role = nullptr;
  const Candidate* versus = nullptr;
};

// The published config fields (energy_j_per_1k_tokens and energy_mj_per_token are the same number: J
// per 1000 tokens = mJ per token) and ours, keys in the document's order.
void write_candidate(JsonSink& sink, const Candidate& c, const Shown& shown = {}) {
  sink.begin_object();
  sink.key("basis");
  write_basis_kinds(sink, c.energy_basis.basis, c.latency_basis.basis, c.vram_basis.basis);
  sink.key("basis_detail");
  write_bases(sink, c);
  sink.field("batch", c.batch);
  sink.field("bound", c.bound);
  sink.field("confidence", c.confidence);
  sink.field("context", c.context);
  sink.key("delta_ci_pct");
  write_pair_or_null(sink, c.delta_ci_low_pct, c.delta_ci_high_pct);
  sink.field("delta_pct_vs_fp16", c.delta_pct);
  sink.field("delta_ppl_pct", c.delta_ppl_pct);
  sink.key("energy_ci_j_per_1k_tokens");
  write_pair_or_null(sink, c.energy_low_mj, c.energy_high_mj);
  sink.field("energy_j_per_1k_tokens", c.energy_mj_per_token);
  sink.field("energy_mj_per_token", c.energy_mj_per_token);
  sink.field("energy_rel_fp16", c.delta_pct ? std::optional<double>(1 + *c.delta_pct / 100) : std::nullopt);
  sink.field("engine", c.engine);
  sink.field("feasible", c.feasible);
  sink.field("kld", c.kld);
  sink.field("latency_ms_per_token", c.latency_ms_per_token);
  sink.field("precision", c.precision);
  sink.key("quality");
  if (c.quality) {
    data::write_json(sink, *c.quality);
  } else {
    sink.null();
  }
  sink.field("recommendation", c.recommendation);
  sink.field("relative_energy", c.relative_energy);
  if (shown.role != nullptr) {
    sink.field("role", shown.role);
    sink.field("summary", summary(c));
  }
  sink.field("throughput_tok_s", c.throughput_tok_s);
  sink.field("violations", c.violations);
  sink.field("vram_gb", c.vram_gb);
  if (shown.versus != nullptr) {
    sink.key("vs_recommended");
    write_versus(sink, c, *shown.versus);
  }
  sink.end_object();
}

void write_shown(JsonSink& sink, const std::optional<Candidate>& c, const char* role) {
  if (c) {
    write_candidate(sink, *c, Shown{role});
  } else {
    sink.null();
  }
}

void write_pareto_point(JsonSink& sink, const Candidate& c) {
  sink.begin_object();
  sink.key("basis");
  write_basis_kinds(sink, c.energy_basis.basis, c.latency_basis.basis, c.vram_basis.basis);
  sink.field("batch", c.batch);
  sink.field("context", c.context);
  sink.field("energy_j_per_1k_tokens", c.energy_mj_per_token);
  sink.field("feasible", c.feasible);
  sink.field("latency_ms_per_token", c.latency_ms_per_token);
  sink.field("precision", c.precision);
  sink.field("relative_energy", c.relative_energy);
  sink.field("throughput_tok_s", c.throughput_tok_s);
  sink.field("vram_gb", c.vram_gb);
  sink.end_object();
}

}  // namespace

void write_json(JsonSink& sink, const Candidate& c) { write_candidate(sink, c); }

void write_json(JsonSink& sink, const OptimizeResponse& r) {
  const std::optional<Candidate>& lead = r.recommended ? r.recommended : r.closest_infeasible;
  sink.begin_object();
  sink.key("alternatives");
  sink.begin_array();
  for (const Candidate& c : r.alternatives) {
    write_candidate(sink, c, Shown{"alternative", r.recommended ? &*r.recommended : nullptr});
  }
  sink.end_array();
  sink.key("basis");
  if (lead) {
    write_basis_kinds(sink, lead->energy_basis.basis, lead->latency_basis.basis, lead->vram_basis.basis);
  } else {
    write_basis_kinds(sink, Basis::unavailable, Basis::modelled, Basis::modelled);
  }
  sink.key("basis_detail");
  if (lead) {
    write_bases(sink, *lead);
  } else {
    sink.null();
  }
  sink.key("best_unmodelled");
  write_shown(sink, r.best_unmodelled, "best configuration whose energy is not modelled");
  sink.key("closest_infeasible");
  write_shown(sink, r.closest_infeasible, "closest (violates constraints)");
  sink.field("feasible_count", r.feasible_count);
  sink.field("input", r.input);
  sink.field("notes", r.notes);
  sink.key("pareto_energy_latency");
  sink.begin_array();
  for (const Candidate& c : r.pareto_energy_latency) write_pareto_point(sink, c);
  sink.end_array();
  sink.key("recommended");
  write_shown(sink, r.recommended, "objective-optimal under the given constraints");
  sink.field("rests_on_model", lead && lead->energy_basis.basis == Basis::modelled);
  sink.key("skipped");
  sink.begin_object();
  for (const auto& [precision, why] : r.skipped) sink.field(precision, why);
  sink.end_object();
  sink.end_object();
}

void to_json(Json& j, const Candidate& c) { to_document(j, c); }

void to_json(Json& j, const OptimizeResponse& r) { to_document(j, r); }

namespace {

std::string pct(const std::optional<double>& v) { return v ? fmt::format("{:+.2f} %", *v) : "—"; }

std::string candidate_line(const Candidate& c) {
  return fmt::format("{:<7} batch {:>3} ctx {:>6}  ΔE {:>10}  energy {:>9} mJ/token [{}]  {:>8.2f} ms/token  {:>9.1f} tok/s  "
                     "[modelled]  {:>6.1f} GB [modelled]  ΔPPL {}{}",
                     c.precision, c.batch, c.context, pct(c.delta_pct),
                     c.energy_mj_per_token ? fmt::format("{:.1f}", *c.energy_mj_per_token) : "—", to_string(c.energy_basis.basis),
                     c.latency_ms_per_token, c.throughput_tok_s, c.vram_gb,
                     pct(c.delta_ppl_pct) + (c.quality ? fmt::format(" [{}]", data::to_string(c.quality->basis)) : ""),
                     c.violations.empty() ? "" : "  ✗ " + fmt::format("{}", fmt::join(c.violations, "; ")));
}

std::string basis_line(const char* what, const data::FigureBasis& b) {
  return fmt::format("  {} basis: {} — {}\n", what, to_string(b.basis), b.label);
}

}  // namespace

std::string to_text(const OptimizeResponse& r) {
  std::string out;
  if (r.recommended) {
    out += "recommended: " + candidate_line(*r.recommended) + "\n";
    out += basis_line("energy", r.recommended->energy_basis);
    out += basis_line("latency", r.recommended->latency_basis);
    out += basis_line("memory", r.recommended->vram_basis);
    if (r.recommended->quality) out += "  quality: " + data::to_text(*r.recommended->quality) + "\n";
  } else {
    out += "recommended: none (no candidate meets every constraint)\n";
  }
  out += fmt::format("feasible candidates: {}\n", r.feasible_count);
  if (r.best_unmodelled) out += "best whose energy is not modelled: " + candidate_line(*r.best_unmodelled) + "\n";
  if (r.closest_infeasible) out += "closest infeasible: " + candidate_line(*r.closest_infeasible) + "\n";
  for (const Candidate& c : r.alternatives) out += "alternative: " + candidate_line(c) + "\n";
  for (const Candidate& c : r.pareto_energy_latency) out += "pareto: " + candidate_line(c) + "\n";
  for (const std::string& n : r.notes) out += "note: " + n + "\n";
  return out;
}

}  // namespace ecocompute::decide
