// Optimizer: expands the grid, estimates each candidate (ΔE from the estimator, latency from a
// roofline of the GPU datasheet, memory from weights + KV cache), applies the constraints and ranks.
#include "data/optimizer.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "data/estimator.hpp"
#include "data/gpu_spec.hpp"
#include "data/model_size.hpp"
#include "util/precision.hpp"

namespace ecocompute::data {
namespace {

// KV cache bytes per token of context: 2 (K and V) × layers × KV heads × head dim × 2 bytes. For
// grouped-query models this is close to 16 KB per billion parameters (Llama-3-8B: 32 × 8 × 128 × 4 =
// 128 KiB). An assumption, stated in the notes.
constexpr double kKvBytesPerTokenPerBillion = 16.0 * 1024;
constexpr double kRuntimeOverhead = 1.10;

int basis_rank(Basis b) {
  switch (b) {
    case Basis::measured: return 0;
    case Basis::interpolated: return 1;
    case Basis::extrapolated: return 2;
    case Basis::borrowed: return 3;
    case Basis::unavailable: return 4;
  }
  return 4;
}

// Decode step time (one token for each of `batch` sequences) in seconds: the larger of reading every
// weight plus the KV cache once, and 2·N·batch FLOPs at the datasheet's dense throughput.
double roofline_step_s(const GpuSpec& gpu, const PrecisionInfo& p, double params_b, int batch, int context) {
  const double weight_bytes = weight_gb(params_b, p) * 1e9;
  const double kv_bytes = kKvBytesPerTokenPerBillion * params_b * context * batch;
  const double memory_s = (weight_bytes + kv_bytes) / (gpu.memory_bandwidth_gbps * 1e9);
  const double peak = (p.name == "INT8" ? gpu.int8_tops : gpu.fp16_tflops) * 1e12;
  const double compute_s = 2.0 * params_b * 1e9 * batch / peak;
  return std::max(memory_s, compute_s);
}

double violation_size(const Candidate& c, const OptimizeRequest& r, double gpu_memory_gb) {
  double total = 0;
  if (r.max_latency_ms && c.latency_ms_per_token > *r.max_latency_ms) total += c.latency_ms_per_token / *r.max_latency_ms - 1;
  if (r.max_vram_gb && c.vram_gb > *r.max_vram_gb) total += c.vram_gb / *r.max_vram_gb - 1;
  if (c.vram_gb > gpu_memory_gb) total += c.vram_gb / gpu_memory_gb - 1;
  if (r.min_throughput && c.throughput_tokens_per_s < *r.min_throughput) total += *r.min_throughput / c.throughput_tokens_per_s - 1;
  if (r.max_delta_ppl_pct) total += c.delta_ppl_pct ? std::max(0.0, *c.delta_ppl_pct - *r.max_delta_ppl_pct) / 10 : 1;
  if (r.max_kld && !c.kld && c.precision != "FP16") total += 1;
  if (!c.relative_energy && r.objective == Objective::min_energy) total += 1;
  return total;
}

bool better(const Candidate& a, const Candidate& b, Objective o) {
  const double ea = a.relative_energy.value_or(1e300), eb = b.relative_energy.value_or(1e300);
  switch (o) {
    case Objective::min_energy:
      if (ea != eb) return ea < eb;
      break;
    case Objective::min_latency:
      if (a.latency_ms_per_token != b.latency_ms_per_token) return a.latency_ms_per_token < b.latency_ms_per_token;
      break;
    case Objective::max_throughput:
      if (a.throughput_tokens_per_s != b.throughput_tokens_per_s) return a.throughput_tokens_per_s > b.throughput_tokens_per_s;
      break;
    case Objective::min_vram:
      if (a.vram_gb != b.vram_gb) return a.vram_gb < b.vram_gb;
      break;
  }
  if (ea != eb) return ea < eb;
  return a.latency_ms_per_token < b.latency_ms_per_token;
}

}  // namespace

std::string_view to_string(Objective o) noexcept {
  switch (o) {
    case Objective::min_energy: return "min_energy";
    case Objective::min_latency: return "min_latency";
    case Objective::max_throughput: return "max_throughput";
    case Objective::min_vram: return "min_vram";
  }
  return "min_energy";
}

Result<Objective> parse_objective(std::string_view text) {
  for (Objective o : {Objective::min_energy, Objective::min_latency, Objective::max_throughput, Objective::min_vram}) {
    if (to_string(o) == text) return o;
  }
  return unexpected(ErrorCode::invalid_argument, "unknown objective '" + std::string(text) +
                                                     "' (min_energy, min_latency, max_throughput, min_vram)");
}

namespace {

// The checked question: the model size, the GPU and the grid to search.
struct Grid {
  double params_b = 0;
  GpuSpec gpu;
  std::vector<PrecisionInfo> precisions;
  std::vector<int> batches;
  std::vector<int> contexts;
};

Result<Grid> checked_grid(const OptimizeRequest& request) {
  std::optional<double> size = request.params_b;
  if (!size && !request.model.empty()) size = params_b_from_model_name(request.model);
  if (!size) return unexpected(ErrorCode::invalid_argument, "params_b (or a model name with a size) is required");
  auto checked = check_params_b(*size, "params_b");
  if (!checked) return checked.error();
  Result<GpuSpec> gpu = !request.gpu.empty() ? find_gpu(request.gpu)
                        : !request.arch.empty() ? representative_gpu(request.arch)
                                                : Result<GpuSpec>(unexpected(ErrorCode::invalid_argument, "gpu or arch is required"));
  if (!gpu) return gpu.error();
  for (const auto& [name, value] : {std::pair{"max_latency_ms", request.max_latency_ms}, std::pair{"max_vram_gb", request.max_vram_gb},
                                    std::pair{"min_throughput", request.min_throughput},
                                    std::pair{"max_delta_ppl_pct", request.max_delta_ppl_pct}, std::pair{"max_kld", request.max_kld}}) {
    if (value && (!std::isfinite(*value) || *value < 0)) {
      return unexpected(ErrorCode::invalid_argument, std::string(name) + " must be a finite number ≥ 0");
    }
  }
  Grid grid{*checked, *gpu, {}, request.batch ? std::vector<int>{*request.batch} : request.batches,
            request.context ? std::vector<int>{*request.context} : request.contexts};
  for (int b : grid.batches) {
    if (b < 1) return unexpected(ErrorCode::invalid_argument, "batch sizes must be ≥ 1");
  }
  for (int c : grid.contexts) {
    if (c < 1) return unexpected(ErrorCode::invalid_argument, "contexts must be ≥ 1");
  }
  if (grid.batches.empty() || grid.contexts.empty() || request.precisions.empty()) {
    return unexpected(ErrorCode::invalid_argument, "the grid is empty (precisions, batches and contexts need a value each)");
  }
  for (const std::string& name : request.precisions) {
    auto p = parse_precision(name);
    if (!p) return p.error();
    grid.precisions.push_back(*p);
  }
  return grid;
}

Json input_echo(const OptimizeRequest& request, const Grid& grid) {
  Json input{{"params_b", grid.params_b}, {"gpu", grid.gpu.name},      {"arch", grid.gpu.arch},
             {"objective", to_string(request.objective)}, {"engine", request.engine},
             {"precisions", request.precisions}, {"batches", grid.batches}, {"contexts", grid.contexts}};
  auto put = [&](const char* key, const std::optional<double>& v) { input[key] = v ? Json(*v) : Json(nullptr); };
  put("max_latency_ms", request.max_latency_ms);
  put("max_vram_gb", request.max_vram_gb);
  put("min_throughput", request.min_throughput);
  put("max_delta_ppl_pct", request.max_delta_ppl_pct);
  put("max_kld", request.max_kld);
  return input;
}

// What the estimator says about one precision at batch 1.
struct PrecisionEvidence {
  std::optional<double> delta;
  Basis basis = Basis::measured;
  std::optional<QualityCost> quality;
};

Result<PrecisionEvidence> precision_evidence(const PrecisionInfo& p, const std::string& engine, const Grid& grid,
                                             const Evidence& evidence) {
  if (p.is_baseline) return PrecisionEvidence{0.0, Basis::measured, std::nullopt};
  EstimateRequest er;
  er.params_b = grid.params_b;
  er.arch = grid.gpu.arch;
  er.precision = p.name;
  er.engine = engine;
  auto e = estimate(er, evidence);
  if (!e) return e.error();
  return PrecisionEvidence{e->delta_pct, e->basis, e->quality_cost};
}

Candidate make_candidate(const PrecisionInfo& p, int batch, int context, const Grid& grid, const PrecisionEvidence& ev,
                         std::optional<double> fp16_abs) {
  const GpuSpec& gpu = grid.gpu;
  const double n = grid.params_b;
  Candidate c;
  c.precision = p.name;
  c.batch = batch;
  c.context = context;
  c.delta_pct = ev.delta;
  c.basis = ev.basis;
  const double step = roofline_step_s(gpu, p, n, batch, context);
  c.latency_ms_per_token = step * 1000;
  c.throughput_tokens_per_s = batch / step;
  c.vram_gb = (weight_gb(n, p) + kKvBytesPerTokenPerBillion * n * context * batch / 1e9) * kRuntimeOverhead;
  if (ev.delta) {
    // ΔE at batch 1 from the evidence, times the roofline's change of step time per token.
    const double batch_factor = (step / batch) / roofline_step_s(gpu, p, n, 1, context);
    const double context_factor = roofline_step_s(gpu, p, n, 1, context) / roofline_step_s(gpu, p, n, 1, grid.contexts.front());
    c.relative_energy = (1 + *ev.delta / 100) * batch_factor * context_factor;
    if (fp16_abs) c.energy_per_token_mj = *fp16_abs * *c.relative_energy;
  }
  if (p.is_baseline) {
    c.delta_ppl_pct = 0.0;
    c.kld = 0.0;
  } else if (ev.quality) {
    c.delta_ppl_pct = ev.quality->delta_perplexity_pct;
    c.kld = ev.quality->kld;
  }
  return c;
}

// Marks the candidate infeasible, with each reason, when it breaks a constraint.
void apply_constraints(Candidate& c, const OptimizeRequest& request, const GpuSpec& gpu) {
  auto violate = [&](std::string what) {
    c.feasible = false;
    c.violations.push_back(std::move(what));
  };
  if (request.max_latency_ms && c.latency_ms_per_token > *request.max_latency_ms) {
    violate(fmt::format("latency {:.2f} ms > {:g} ms", c.latency_ms_per_token, *request.max_latency_ms));
  }
  if (request.max_vram_gb && c.vram_gb > *request.max_vram_gb) {
    violate(fmt::format("memory {:.1f} GB > {:g} GB", c.vram_gb, *request.max_vram_gb));
  }
  if (c.vram_gb > gpu.memory_gb) violate(fmt::format("memory {:.1f} GB > the {}'s {:g} GB", c.vram_gb, gpu.name, gpu.memory_gb));
  if (request.min_throughput && c.throughput_tokens_per_s < *request.min_throughput) {
    violate(fmt::format("throughput {:.1f} tok/s < {:g}", c.throughput_tokens_per_s, *request.min_throughput));
  }
  if (request.max_delta_ppl_pct) {
    if (!c.delta_ppl_pct) {
      violate("quality unknown (no measured perplexity for " + c.precision + ")");
    } else if (*c.delta_ppl_pct > *request.max_delta_ppl_pct) {
      violate(fmt::format("perplexity {:+.1f} % > {:g} %", *c.delta_ppl_pct, *request.max_delta_ppl_pct));
    }
  }
  if (request.max_kld) {
    if (!c.kld) {
      violate("quality unknown (no measured KL divergence for " + c.precision + ")");
    } else if (*c.kld > *request.max_kld) {
      violate(fmt::format("KL divergence {:.4f} > {:g}", *c.kld, *request.max_kld));
    }
  }
  if (request.objective == Objective::min_energy && !c.relative_energy) violate("energy unknown (basis unavailable)");
}

// Every candidate of the grid, estimated and checked against the constraints.
Result<std::vector<Candidate>> candidates(const OptimizeRequest& request, const Grid& grid, const Evidence& evidence) {
  std::vector<Candidate> all;
  std::optional<double> fp16_abs;
  for (const PrecisionInfo& p : grid.precisions) {
    const std::string engine = request.engine.empty() ? std::string(p.default_engine) : request.engine;
    auto ev = precision_evidence(p, engine, grid, evidence);
    if (!ev) return ev.error();
    if (!fp16_abs) {
      if (auto abs = estimate_fp16_energy(evidence, grid.gpu.arch, engine, grid.params_b)) fp16_abs = abs->fp16_mj_per_token;
    }
    for (int batch : grid.batches) {
      for (int context : grid.contexts) {
        Candidate c = make_candidate(p, batch, context, grid, *ev, fp16_abs);
        apply_constraints(c, request, grid.gpu);
        all.push_back(std::move(c));
      }
    }
  }
  return all;
}

// Ranks the candidates into the answer: the recommendation, alternatives, the closest infeasible
// candidate and the energy/latency Pareto front.
void rank(const std::vector<Candidate>& all, const OptimizeRequest& request, const GpuSpec& gpu, OptimizeResponse& out) {
  std::vector<Candidate> feasible, infeasible;
  for (const Candidate& c : all) (c.feasible ? feasible : infeasible).push_back(c);
  std::sort(feasible.begin(), feasible.end(), [&](const Candidate& a, const Candidate& b) { return better(a, b, request.objective); });
  out.feasible_count = static_cast<int>(feasible.size());
  if (!feasible.empty()) {
    out.recommended = feasible.front();
    out.basis = std::string(to_string(feasible.front().basis));
    for (std::size_t i = 1; i < feasible.size() && i <= 5; ++i) out.alternatives.push_back(feasible[i]);
  } else {
    out.basis = "unavailable";
    out.notes.push_back("no candidate meets every constraint");
  }
  if (!infeasible.empty()) {
    out.closest_infeasible = *std::min_element(infeasible.begin(), infeasible.end(), [&](const Candidate& a, const Candidate& b) {
      const double va = violation_size(a, request, gpu.memory_gb), vb = violation_size(b, request, gpu.memory_gb);
      if (va != vb) return va < vb;
      return better(a, b, request.objective);
    });
  }
  for (const Candidate& c : feasible) {
    if (!c.relative_energy) continue;
    const bool dominated = std::any_of(feasible.begin(), feasible.end(), [&](const Candidate& o) {
      return o.relative_energy && *o.relative_energy <= *c.relative_energy && o.latency_ms_per_token <= c.latency_ms_per_token &&
             (*o.relative_energy < *c.relative_energy || o.latency_ms_per_token < c.latency_ms_per_token);
    });
    if (!dominated) out.pareto_energy_latency.push_back(c);
  }
  std::sort(out.pareto_energy_latency.begin(), out.pareto_energy_latency.end(),
            [](const Candidate& a, const Candidate& b) { return a.latency_ms_per_token < b.latency_ms_per_token; });
  int worst = 0;
  for (const Candidate& c : feasible) worst = std::max(worst, basis_rank(c.basis));
  if (worst >= 2) out.notes.push_back("some feasible candidates rest on extrapolated, borrowed or unavailable ΔE: see each basis");
}

}  // namespace

Result<OptimizeResponse> optimize(const OptimizeRequest& request, const Evidence& evidence) {
  auto grid = checked_grid(request);
  if (!grid) return grid.error();
  OptimizeResponse out;
  out.input = input_echo(request, *grid);
  out.notes.push_back(fmt::format("latency: roofline of the {} datasheet ({:g} GB/s, {:g} TFLOP/s FP16), an ideal-kernel lower "
                                  "bound; KV cache assumed {:g} KiB per token per billion parameters",
                                  grid->gpu.name, grid->gpu.memory_bandwidth_gbps, grid->gpu.fp16_tflops,
                                  kKvBytesPerTokenPerBillion / 1024));
  out.notes.push_back("energy per token at batch > 1 modelled as ∝ step time / batch (constant power); no measured batch effects yet");
  auto all = candidates(request, *grid, evidence);
  if (!all) return all.error();
  rank(*all, request, grid->gpu, out);
  return out;
}

Result<OptimizeRequest> optimize_request_from_json(const Json& body) {
  if (!body.is_object()) return unexpected(ErrorCode::invalid_argument, "request body must be a JSON object");
  OptimizeRequest r;
  auto number = [&](const char* key) -> Result<std::optional<double>> {
    if (!body.contains(key) || body[key].is_null()) return std::optional<double>{};
    if (!body[key].is_number()) return unexpected(ErrorCode::invalid_argument, std::string("field '") + key + "' must be a number");
    const double v = body[key].get<double>();
    if (!std::isfinite(v)) return unexpected(ErrorCode::invalid_argument, std::string("field '") + key + "' must be finite");
    return std::optional<double>{v};
  };
  auto text = [&](const char* key, std::string& out) -> Result<void> {
    if (!body.contains(key) || body[key].is_null()) return {};
    if (!body[key].is_string()) return unexpected(ErrorCode::invalid_argument, std::string("field '") + key + "' must be a string");
    out = body[key].get<std::string>();
    return {};
  };
  auto whole = [&](const char* key) -> Result<std::optional<int>> {
    auto v = number(key);
    if (!v) return v.error();
    if (!*v) return std::optional<int>{};
    if (**v != std::floor(**v) || **v < 1 || **v > 1e7) {
      return unexpected(ErrorCode::invalid_argument, std::string("field '") + key + "' must be a whole number ≥ 1");
    }
    return std::optional<int>{static_cast<int>(**v)};
  };
  for (const char* key : {"params_b", "N"}) {
    auto v = number(key);
    if (!v) return v.error();
    if (*v) r.params_b = *v;
  }
  std::string objective;
  for (auto [key, field] : {std::pair{"model", &r.model}, std::pair{"gpu", &r.gpu}, std::pair{"arch", &r.arch},
                            std::pair{"engine", &r.engine}, std::pair{"objective", &objective}}) {
    if (auto ok = text(key, *field); !ok) return ok.error();
  }
  if (!objective.empty()) {
    auto o = parse_objective(objective);
    if (!o) return o.error();
    r.objective = *o;
  }
  for (auto [key, field] : {std::pair{"max_latency_ms", &r.max_latency_ms}, std::pair{"max_vram_gb", &r.max_vram_gb},
                            std::pair{"min_throughput", &r.min_throughput},
                            std::pair{"max_delta_ppl_pct", &r.max_delta_ppl_pct}, std::pair{"max_kld", &r.max_kld}}) {
    auto v = number(key);
    if (!v) return v.error();
    *field = *v;
  }
  for (auto [key, field] : {std::pair{"batch", &r.batch}, std::pair{"ctx", &r.context}, std::pair{"context", &r.context}}) {
    auto v = whole(key);
    if (!v) return v.error();
    if (*v) *field = *v;
  }
  if (body.contains("precisions")) {
    if (!body["precisions"].is_array()) return unexpected(ErrorCode::invalid_argument, "field 'precisions' must be an array of strings");
    r.precisions.clear();
    for (const Json& p : body["precisions"]) {
      if (!p.is_string()) return unexpected(ErrorCode::invalid_argument, "field 'precisions' must be an array of strings");
      r.precisions.push_back(p.get<std::string>());
    }
  }
  for (auto [key, field] : {std::pair{"batches", &r.batches}, std::pair{"contexts", &r.contexts}}) {
    if (!body.contains(key)) continue;
    if (!body[key].is_array()) return unexpected(ErrorCode::invalid_argument, std::string("field '") + key + "' must be an array");
    field->clear();
    for (const Json& v : body[key]) {
      if (!v.is_number_integer() || v.get<long long>() < 1) {
        return unexpected(ErrorCode::invalid_argument, std::string("field '") + key + "' must hold whole numbers ≥ 1");
      }
      field->push_back(static_cast<int>(v.get<long long>()));
    }
  }
  return r;
}

namespace {
Json opt(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }
}  // namespace

void to_json(Json& j, const Candidate& c) {
  j = Json{{"precision", c.precision},
           {"batch", c.batch},
           {"ctx", c.context},
           {"delta_pct", opt(c.delta_pct)},
           {"energy_per_token_mj", opt(c.energy_per_token_mj)},
           {"relative_energy", opt(c.relative_energy)},
           {"latency_ms_per_token", c.latency_ms_per_token},
           {"throughput_tokens_per_s", c.throughput_tokens_per_s},
           {"vram_gb", c.vram_gb},
           {"delta_ppl_pct", opt(c.delta_ppl_pct)},
           {"kld", opt(c.kld)},
           {"basis", to_string(c.basis)},
           {"feasible", c.feasible},
           {"violations", c.violations}};
}

void to_json(Json& j, const OptimizeResponse& r) {
  j = Json{{"input", r.input},
           {"basis", r.basis},
           {"feasible_count", r.feasible_count},
           {"notes", r.notes},
           {"recommended", r.recommended ? Json(*r.recommended) : Json(nullptr)},
           {"closest_infeasible", r.closest_infeasible ? Json(*r.closest_infeasible) : Json(nullptr)},
           {"alternatives", r.alternatives},
           {"pareto_energy_latency", r.pareto_energy_latency}};
}

}  // namespace ecocompute::data
