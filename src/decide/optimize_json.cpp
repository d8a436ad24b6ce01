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
Json pair_or_null(const std::optional<double>& a, const std::optional<double>& b) {
  return a && b ? Json::array({*a, *b}) : Json(nullptr);
}

std::string summary(const Candidate& c) {
  std::string s = fmt::format("{}, batch={}, context={}", c.precision, c.batch, c.context);
  if (c.energy_mj_per_token) s += fmt::format(" -> {:.1f} J/1k tok", *c.energy_mj_per_token);
  s += fmt::format(", {:.1f} tok/s, {:.2f} ms/tok, {:.2f} GB", c.throughput_tok_s, c.latency_ms_per_token, c.vram_gb);
  s += fmt::format(" (energy {}; latency and memory modelled)", to_string(c.energy_basis.basis));
  return s;
}

Json decorated(const Candidate& c, const std::string& role) {
  Json j = c;
  j["role"] = role;
  j["summary"] = summary(c);
  return j;
}

std::optional<double> pct_of(double a, double b) {
  if (b == 0) return std::nullopt;
  return (a - b) / b * 100;
}

Json figure_basis(const Candidate& c) {
  return Json{{"energy", to_string(c.energy_basis.basis)},
              {"latency", to_string(c.latency_basis.basis)},
              {"vram", to_string(c.vram_basis.basis)}};
}
}  // namespace

void to_json(Json& j, const Candidate& c) {
  // Published config fields first (energy_j_per_1k_tokens and energy_mj_per_token are the same number:
  // J per 1000 tokens = mJ per token), then ours.
  j = Json{{"precision", c.precision},
           {"batch", c.batch},
           {"context", c.context},
           {"energy_j_per_1k_tokens", json_or_null(c.energy_mj_per_token)},
           {"energy_mj_per_token", json_or_null(c.energy_mj_per_token)},
           {"energy_rel_fp16", c.delta_pct ? Json(1 + *c.delta_pct / 100) : Json(nullptr)},
           {"delta_pct_vs_fp16", json_or_null(c.delta_pct)},
           {"latency_ms_per_token", c.latency_ms_per_token},
           {"throughput_tok_s", c.throughput_tok_s},
           {"bound", c.bound},
           {"vram_gb", c.vram_gb},
           {"basis", figure_basis(c)},
           {"confidence", c.confidence},
           {"recommendation", c.recommendation},
           {"engine", c.engine},
           {"delta_ci_pct", pair_or_null(c.delta_ci_low_pct, c.delta_ci_high_pct)},
           {"energy_ci_j_per_1k_tokens", pair_or_null(c.energy_low_mj, c.energy_high_mj)},
           {"relative_energy", json_or_null(c.relative_energy)},
           {"basis_detail", {{"energy", c.energy_basis}, {"latency", c.latency_basis}, {"vram", c.vram_basis}}},
           {"delta_ppl_pct", json_or_null(c.delta_ppl_pct)},
           {"kld", json_or_null(c.kld)},
           {"quality", c.quality ? Json(*c.quality) : Json(nullptr)},
           {"feasible", c.feasible},
           {"violations", c.violations}};
}

void to_json(Json& j, const OptimizeResponse& r) {
  const std::optional<Candidate>& lead = r.recommended ? r.recommended : r.closest_infeasible;
  j = Json{{"input", r.input},
           {"basis", lead ? figure_basis(*lead) : Json{{"energy", "unavailable"}, {"latency", "modelled"}, {"vram", "modelled"}}},
           {"rests_on_model", lead && lead->energy_basis.basis == Basis::modelled},
           {"feasible_count", r.feasible_count},
           {"notes", r.notes},
           {"skipped", r.skipped}};
  j["basis_detail"] = lead ? Json{{"energy", lead->energy_basis}, {"latency", lead->latency_basis}, {"vram", lead->vram_basis}}
                           : Json(nullptr);
  j["recommended"] = r.recommended ? decorated(*r.recommended, "objective-optimal under the given constraints") : Json(nullptr);
  j["closest_infeasible"] = r.closest_infeasible ? decorated(*r.closest_infeasible, "closest (violates constraints)") : Json(nullptr);
  j["best_unmodelled"] = r.best_unmodelled ? decorated(*r.best_unmodelled, "best configuration whose energy is not modelled")
                                           : Json(nullptr);
  Json alternatives = Json::array();
  for (const Candidate& c : r.alternatives) {
    Json a = decorated(c, "alternative");
    if (r.recommended) {
      const Candidate& best = *r.recommended;
      auto ratio = [](const std::optional<double>& a1, const std::optional<double>& b1) {
        return a1 && b1 ? json_or_null(pct_of(*a1, *b1)) : Json(nullptr);
      };
      a["vs_recommended"] = Json{{"energy_pct", ratio(c.relative_energy, best.relative_energy)},
                                 {"latency_pct", json_or_null(pct_of(c.latency_ms_per_token, best.latency_ms_per_token))},
                                 {"throughput_pct", json_or_null(pct_of(c.throughput_tok_s, best.throughput_tok_s))},
                                 {"vram_pct", json_or_null(pct_of(c.vram_gb, best.vram_gb))}};
    }
    alternatives.push_back(std::move(a));
  }
  j["alternatives"] = std::move(alternatives);
  Json pareto = Json::array();
  for (const Candidate& c : r.pareto_energy_latency) {
    pareto.push_back(Json{{"precision", c.precision},
                          {"batch", c.batch},
                          {"context", c.context},
                          {"energy_j_per_1k_tokens", json_or_null(c.energy_mj_per_token)},
                          {"latency_ms_per_token", c.latency_ms_per_token},
                          {"throughput_tok_s", c.throughput_tok_s},
                          {"vram_gb", c.vram_gb},
                          {"relative_energy", json_or_null(c.relative_energy)},
                          {"basis", figure_basis(c)},
                          {"feasible", c.feasible}});
  }
  j["pareto_energy_latency"] = std::move(pareto);
}

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
