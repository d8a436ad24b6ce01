// The estimator's JSON: the request read from /v1/estimate fields (a superset of the published ones)
// and the answer written in the published field names plus ours.
#include "data/engine_name.hpp"
#include "data/estimator.hpp"
#include "data/request_fields.hpp"

namespace ecocompute::data {

Result<EstimateRequest> estimate_request_from_json(const Json& body) {
  if (!body.is_object()) return unexpected(ErrorCode::invalid_argument, "request body must be a JSON object");
  const RequestFields fields(body);
  if (auto known = fields.refuse_unknown({"params_b", "N", "model", "q", "query", "gpu", "arch", "precision", "engine",
                                          "batch", "ctx", "context", "allow_borrow"});
      !known) {
    return known.error();
  }
  EstimateRequest r;
  auto size = fields.params_b();
  if (!size) return size.error();
  r.params_b = *size;
  for (auto [key, field] : {std::pair{"model", &r.model}, std::pair{"q", &r.q}, std::pair{"query", &r.q},
                            std::pair{"gpu", &r.gpu}, std::pair{"arch", &r.arch}, std::pair{"precision", &r.precision},
                            std::pair{"engine", &r.engine}}) {
    auto v = fields.text(key);
    if (!v) return v.error();
    if (*v) *field = **v;
  }
  r.engine = canonical_engine_name(r.engine);
  auto shape = fields.batch_and_context();
  if (!shape) return shape.error();
  r.batch = shape->batch.value_or(r.batch);
  r.context = shape->context.value_or(r.context);
  auto borrow = fields.allow_borrow();
  if (!borrow) return borrow.error();
  r.allow_borrow = *borrow;
  return r;
}

void to_json(Json& j, const Anchor& a) {
  // N, dE, gpu, n, model: the published anchor; params_b, delta_pct, session: ours.
  j = Json{{"N", a.params_b},        {"dE", a.delta_pct},       {"model", a.model},   {"gpu", a.gpu},
           {"n", a.n},               {"params_b", a.params_b}, {"delta_pct", a.delta_pct}, {"session", a.session}};
}

void to_json(Json& j, const QualityCost& q) {
  j = Json{{"delta_perplexity_pct", q.delta_perplexity_pct}, {"kld", json_or_null(q.kld)},
           {"measured_at_b", q.measured_at_b}, {"model", q.model}, {"basis", to_string(q.basis.basis)},
           {"basis_detail", q.basis}, {"note", q.note}};
}

void to_json(Json& j, const EnergyEstimate& e) {
  j = Json{{"fp16_mj_per_token", e.fp16_mj_per_token},
           {"mj_per_token", e.mj_per_token},
           {"mj_per_token_ci", e.low_mj_per_token ? Json::array({*e.low_mj_per_token, *e.high_mj_per_token}) : Json(nullptr)},
           {"method", e.method},
           {"label", to_string(e.basis.basis)},
           {"basis", to_string(e.basis.basis)},
           {"basis_detail", e.basis},
           {"fp16_basis", to_string(e.fp16_basis.basis)},
           {"fp16_basis_detail", e.fp16_basis}};
}

void to_json(Json& j, const BandTerms& b) {
  j = Json{{"within_session_pct", json_or_null(b.within_session)},
           {"between_sessions_pct", json_or_null(b.between_sessions)},
           {"extrapolation_pct", b.extrapolation},
           {"borrowing_pct", b.borrowing},
           {"batch_model_pct", b.batch_model},
           {"half_width_pct", b.half_width},
           {"between_sessions_note", b.between_sessions_note},
           {"rule", "95 % half-widths combined in quadrature (docs/decision-layer.md, \"Uncertainty\")"}};
}

void to_json(Json& j, const EstimateResponse& r) {
  j = Json{{"input", r.input},
           {"delta_pct", json_or_null(r.delta_pct)},
           {"ci", r.ci_low_pct ? Json::array({*r.ci_low_pct, *r.ci_high_pct}) : Json(nullptr)},
           {"ci_kind", r.ci_kind},
           {"basis", to_string(r.basis)},
           {"confidence", r.confidence},
           {"recommendation", r.recommendation},
           {"verdict", r.verdict},
           {"crossover_b", json_or_null(r.crossover_b)},
           {"anchors", r.anchors},
           {"arch_used", r.arch_used},
           {"modelled", r.modelled},
           {"weight_gb", r.weight_gb},
           {"weight_gb_fp16", r.weight_gb_fp16},
           {"notes", r.notes},
           {"engine", r.engine},
           {"band", r.band}};
  FigureBasis weights = modelled_basis("N × bits per weight / 8 (weights only)");
  j["figure_basis"] = Json{{"delta_pct", r.delta_basis},
                           {"energy", r.energy_estimate ? Json(r.energy_estimate->basis) : Json(nullptr)},
                           {"fp16_energy", r.energy_estimate ? Json(r.energy_estimate->fp16_basis) : Json(nullptr)},
                           {"quality", r.quality_cost ? Json(r.quality_cost->basis) : Json(nullptr)},
                           {"weight_gb", weights}};
  j["quality_cost"] = json_or_null(r.quality_cost);
  j["energy_estimate"] = json_or_null(r.energy_estimate);
  j["curve"] = json_or_null(r.curve);
}

}  // namespace ecocompute::data
