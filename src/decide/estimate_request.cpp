// Reading and checking an estimate question (see estimate.hpp).
#include <fmt/format.h>

#include "data/engine_name.hpp"
#include "data/gpu_spec.hpp"
#include "data/model_size.hpp"
#include "data/query_text.hpp"
#include "data/request_fields.hpp"
#include "decide/estimate.hpp"
#include "util/precision.hpp"

namespace ecocompute::decide {
namespace {

Result<void> apply_free_text(EstimateRequest& r) {
  if (r.q.empty()) return {};
  auto parsed = data::parse_query_text(r.q);
  if (!parsed) return parsed.error();
  const data::QueryText& t = *parsed;
  if (t.params_b) r.params_b = t.params_b;
  if (t.gpu) {
    r.gpu = *t.gpu;
    r.arch.clear();
  } else if (t.arch) {
    r.arch = *t.arch;
    r.gpu.clear();
  }
  if (t.precision) r.precision = *t.precision;
  if (t.batch) r.batch = *t.batch;
  if (t.context) r.context = *t.context;
  return {};
}

Result<void> resolve_device(const EstimateRequest& r, Query& q) {
  if (!r.gpu.empty()) {
    auto gpu = data::find_gpu(r.gpu);
    if (!gpu) return gpu.error();
    q.gpu = *gpu;
    q.arch = gpu->arch;
  }
  if (!r.arch.empty()) {
    auto arch = data::parse_architecture(r.arch);
    if (!arch) return arch.error();
    if (q.gpu && *arch != q.arch) {
      return unexpected(ErrorCode::invalid_argument, fmt::format("gpu {} is {}, not {}: give one of gpu or arch", q.gpu->name, q.arch, *arch));
    }
    q.arch = *arch;
  }
  if (q.arch.empty()) return unexpected(ErrorCode::invalid_argument, "arch or gpu is required");
  return {};
}

}  // namespace

Result<Query> resolve_estimate_request(const EstimateRequest& request) {
  EstimateRequest r = request;
  if (auto text = apply_free_text(r); !text) return text.error();
  std::optional<double> active_b;
  if (!r.params_b && !r.model.empty()) {
    const auto named = data::model_size_from_name(r.model);
    if (!named) return unexpected(ErrorCode::invalid_argument, "cannot read a size from model name '" + r.model + "'; give params_b");
    r.params_b = named->total_b;
    active_b = named->active_b;
  }
  if (!r.params_b) return unexpected(ErrorCode::invalid_argument, "params_b (model size in billions, or a model name with a size) is required");
  auto size = data::check_params_b(*r.params_b, "params_b");
  if (!size) return size.error();
  if (r.batch < 1) return unexpected(ErrorCode::invalid_argument, "batch must be ≥ 1");
  if (r.context < 1) return unexpected(ErrorCode::invalid_argument, "ctx must be ≥ 1");
  auto precision = parse_precision(r.precision);
  if (!precision) return precision.error();
  if (precision->is_baseline) {
    return unexpected(ErrorCode::invalid_argument,
                      "precision " + std::string(precision->name) + " is the baseline; ask about a quantized one");
  }
  Query q;
  q.params_b = *size;
  if (active_b) {
    auto active = data::check_params_b(*active_b, "the active size");
    if (!active) return active.error();
    q.active_params_b = *active;
  }
  q.model = r.model;
  q.precision = *precision;
  q.batch = r.batch;
  q.context = r.context;
  q.allow_borrow = r.allow_borrow;
  if (auto device = resolve_device(r, q); !device) return device.error();
  q.engine = r.engine.empty() ? std::string(precision->default_engine) : r.engine;
  return q;
}

Result<EstimateRequest> estimate_request_from_json(const Json& body) {
  if (!body.is_object()) return unexpected(ErrorCode::invalid_argument, "request body must be a JSON object");
  const data::RequestFields fields(body);
  if (auto known = fields.refuse_unknown({"params_b", "N", "model", "q", "query", "gpu", "arch", "precision", "engine",
                                          "batch", "ctx", "context", "allow_borrow"});
      !known) {
    return known.error();
  }
  EstimateRequest r;
  auto size = fields.params_b();
  if (!size) return size.error();
  r.params_b = *size;
  for (auto [key, field] : {std::pair{"model", &r.model}, std::pair{"q", &r.q}, std::pair{"query", &r.q}, std::pair{"gpu", &r.gpu},
                            std::pair{"arch", &r.arch}, std::pair{"precision", &r.precision}, std::pair{"engine", &r.engine}}) {
    auto v = fields.text(key);
    if (!v) return v.error();
    if (*v) *field = **v;
  }
  r.engine = data::canonical_engine_name(r.engine);
  auto shape = fields.batch_and_context();
  if (!shape) return shape.error();
  r.batch = shape->batch.value_or(r.batch);
  r.context = shape->context.value_or(r.context);
  auto borrow = fields.allow_borrow();
  if (!borrow) return borrow.error();
  r.allow_borrow = *borrow;
  return r;
}

}  // namespace ecocompute::decide
