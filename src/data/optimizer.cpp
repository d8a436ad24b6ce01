// Optimizer: expands the grid, scores each configuration on its own (config_score), applies the
// constraints and ranks. The published objectives and constraints keep their meaning; the ranking
// uses each configuration's energy relative to FP16 at batch 1 in the same session, so sessions with
// different baselines never decide a ranking between precisions.
#include "data/optimizer.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "data/config_score.hpp"
#include "data/gpu_spec.hpp"
#include "data/model_size.hpp"
#include "data/request_fields.hpp"
#include "util/precision.hpp"

namespace ecocompute::data {
namespace {

constexpr std::size_t kAlternatives = 3;  // as published

double energy_key(const Candidate& c) { return c.relative_energy.value_or(1e300); }

double objective_key(const Candidate& c, Objective o) {
  switch (o) {
    case Objective::min_energy: return energy_key(c);
    case Objective::min_latency: return c.latency_ms_per_token;
    case Objective::max_throughput: return -c.throughput_tok_s;
    case Objective::min_vram: return c.vram_gb;
  }
  return energy_key(c);
}

// The objective first; then lower energy, lower memory, lower latency (the published tie-breaks).
bool better(const Candidate& a, const Candidate& b, Objective o) {
  auto differ = [](double x, double y) { return std::abs(x - y) > 1e-9 * std::max({1.0, std::abs(x), std::abs(y)}); };
  if (differ(objective_key(a, o), objective_key(b, o))) return objective_key(a, o) < objective_key(b, o);
  if (differ(energy_key(a), energy_key(b))) return energy_key(a) < energy_key(b);
  if (differ(a.vram_gb, b.vram_gb)) return a.vram_gb < b.vram_gb;
  return a.latency_ms_per_token < b.latency_ms_per_token;
}

double violation_size(const Candidate& c, const OptimizeRequest& r, double gpu_memory_gb) {
  double total = 0;
  if (r.max_latency_ms && c.latency_ms_per_token > *r.max_latency_ms) total += c.latency_ms_per_token / *r.max_latency_ms - 1;
  if (r.max_vram_gb && c.vram_gb > *r.max_vram_gb) total += c.vram_gb / *r.max_vram_gb - 1;
  if (c.vram_gb > gpu_memory_gb) total += c.vram_gb / gpu_memory_gb - 1;
  if (r.min_throughput && c.throughput_tok_s < *r.min_throughput) total += *r.min_throughput / c.throughput_tok_s - 1;
  if (r.max_delta_ppl_pct) total += c.delta_ppl_pct ? std::max(0.0, *c.delta_ppl_pct - *r.max_delta_ppl_pct) / 10 : 1;
  if (r.max_kld && !c.kld) total += 1;
  if (!c.relative_energy && r.objective == Objective::min_energy) total += 1;
  return total;
}

// The checked question: the model size, the GPU and the grid to search.
struct Grid {
  ConfigQuestion question;
  std::vector<PrecisionInfo> precisions;
  std::vector<int> batches;
  std::vector<int> contexts;
};

Result<Grid> checked_grid(const OptimizeRequest& request) {
  std::optional<double> size = request.params_b;
  if (!size && !request.model.empty()) size = params_b_from_model_name(request.model);
  if (!size) return unexpected(ErrorCode::invalid_argument, "params_b (model size in billions, or a model name with a size) is required");
  auto checked = check_params_b(*size, "params_b");
  if (!checked) return checked.error();
  Result<GpuSpec> gpu = !request.gpu.empty()    ? find_gpu(request.gpu)
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
  Grid grid{ConfigQuestion{*checked, *gpu, !request.gpu.empty(), request.allow_borrow},
            {},
            request.batch ? std::vector<int>{*request.batch} : request.batches,
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

Json input_echo(const OptimizeRequest& request, const Grid& grid, std::size_t candidates) {
  auto opt = [](const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); };
  std::vector<std::string> precisions;
  for (const PrecisionInfo& p : grid.precisions) precisions.emplace_back(p.name);
  return Json{{"params_b", grid.question.params_b},
              {"arch", grid.question.gpu.arch},
              {"gpu", grid.question.gpu.name},
              {"gpu_named", grid.question.gpu_named},
              {"objective", to_string(request.objective)},
              {"engine", request.engine},
              {"allow_borrow", request.allow_borrow},
              {"constraints",
               {{"max_latency_ms", opt(request.max_latency_ms)},
                {"max_vram_gb", opt(request.max_vram_gb)},
                {"min_throughput", opt(request.min_throughput)},
                {"max_delta_ppl_pct", opt(request.max_delta_ppl_pct)},
                {"max_kld", opt(request.max_kld)}}},
              {"grid", {{"precisions", precisions}, {"batches", grid.batches}, {"contexts", grid.contexts}, {"candidates", candidates}}}};
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
  if (request.min_throughput && c.throughput_tok_s < *request.min_throughput) {
    violate(fmt::format("throughput {:.1f} tok/s < {:g}", c.throughput_tok_s, *request.min_throughput));
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

// Ranks the candidates into the answer: the recommendation, alternatives, the closest infeasible
// candidate and the energy/latency Pareto front.
void rank(const OptimizeRequest& request, const GpuSpec& gpu, OptimizeResponse& out) {
  std::vector<Candidate> feasible, infeasible;
  for (const Candidate& c : out.candidates) (c.feasible ? feasible : infeasible).push_back(c);
  std::sort(feasible.begin(), feasible.end(), [&](const Candidate& a, const Candidate& b) { return better(a, b, request.objective); });
  out.feasible_count = static_cast<int>(feasible.size());
  if (!feasible.empty()) {
    out.recommended = feasible.front();
    for (std::size_t i = 1; i < feasible.size() && i <= kAlternatives; ++i) out.alternatives.push_back(feasible[i]);
    if (out.recommended->energy_basis.basis == Basis::modelled) {
      const auto unmodelled = std::find_if(feasible.begin(), feasible.end(),
                                           [](const Candidate& c) { return c.energy_basis.basis != Basis::modelled && c.relative_energy; });
      if (unmodelled != feasible.end()) out.best_unmodelled = *unmodelled;
    }
  } else {
    out.notes.push_back("no configuration satisfies every constraint: the closest one is shown; consider relaxing the binding limit");
  }
  if (!infeasible.empty()) {
    out.closest_infeasible = *std::min_element(infeasible.begin(), infeasible.end(), [&](const Candidate& a, const Candidate& b) {
      const double va = violation_size(a, request, gpu.memory_gb), vb = violation_size(b, request, gpu.memory_gb);
      if (va != vb) return va < vb;
      return better(a, b, request.objective);
    });
  }
  for (const Candidate& c : out.candidates) {
    if (!c.relative_energy) continue;
    const bool dominated = std::any_of(out.candidates.begin(), out.candidates.end(), [&](const Candidate& o) {
      return o.relative_energy && *o.relative_energy <= *c.relative_energy && o.latency_ms_per_token <= c.latency_ms_per_token &&
             (*o.relative_energy < *c.relative_energy || o.latency_ms_per_token < c.latency_ms_per_token);
    });
    if (!dominated) out.pareto_energy_latency.push_back(c);
  }
  std::sort(out.pareto_energy_latency.begin(), out.pareto_energy_latency.end(),
            [](const Candidate& a, const Candidate& b) { return energy_key(a) < energy_key(b); });
}

std::string describe(const Candidate& c) {
  return fmt::format("{} batch {} context {}", c.precision, c.batch, c.context);
}

void add_notes(OptimizeResponse& out, const Grid& grid) {
  const GpuSpec& gpu = grid.question.gpu;
  out.notes.push_back(fmt::format("latency and throughput: roofline of the {} datasheet ({:g} GB/s, {:g} TFLOP/s FP16), an "
                                  "ideal-kernel lower bound (modelled, not measured); memory: weights + KV cache ({:g} KiB per token "
                                  "per billion parameters) + 10 % (modelled)",
                                  gpu.name, gpu.memory_bandwidth_gbps, gpu.fp16_tflops, kKvBytesPerTokenPerBillion / 1024));
  out.notes.push_back("energy: measured where a session measured that precision, size and batch; read off the session's curve in "
                      "size; elsewhere modelled (batch amortization and the savings factor of docs/decision-layer.md), said so "
                      "in each configuration's basis, with a wider band");
  out.notes.push_back("the ranking uses each configuration's energy relative to FP16 at batch 1 in the session of its own ΔE; "
                      "absolute energies come from that session's FP16 baseline (sessions differ: see each basis)");
  if (out.recommended && out.recommended->energy_basis.basis == Basis::modelled) {
    std::string note = fmt::format("the recommendation rests on a model: the energy of {} is modelled, not measured", describe(*out.recommended));
    if (out.best_unmodelled) {
      note += fmt::format("; the best configuration whose energy is not modelled is {} ({})", describe(*out.best_unmodelled),
                          to_string(out.best_unmodelled->energy_basis.basis));
    }
    out.notes.push_back(note);
  }
  for (const auto& [precision, why] : out.skipped) out.notes.push_back(precision + " not scored: " + why);
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

Result<OptimizeResponse> optimize(const OptimizeRequest& request, const Evidence& evidence) {
  auto grid = checked_grid(request);
  if (!grid) return grid.error();
  OptimizeResponse out;
  for (const PrecisionInfo& p : grid->precisions) {
    const std::string engine = request.engine.empty() ? std::string(p.default_engine) : request.engine;
    for (int batch : grid->batches) {
      for (int context : grid->contexts) {
        auto scored = score_config(grid->question, p, engine, batch, context, evidence);
        if (!scored) {
          out.skipped[std::string(p.name)] = scored.error().message();
          break;
        }
        apply_constraints(*scored, request, grid->question.gpu);
        out.candidates.push_back(std::move(*scored));
      }
      if (out.skipped.contains(std::string(p.name))) break;
    }
  }
  if (out.candidates.empty()) {
    std::string detail;
    for (const auto& [precision, why] : out.skipped) detail += fmt::format("{}{}: {}", detail.empty() ? "" : "; ", precision, why);
    return unexpected(ErrorCode::invalid_argument, "no configuration could be scored (" + detail + ")");
  }
  out.input = input_echo(request, *grid, out.candidates.size());
  rank(request, grid->question.gpu, out);
  add_notes(out, *grid);
  return out;
}

Result<OptimizeRequest> optimize_request_from_json(const Json& body) {
  if (!body.is_object()) return unexpected(ErrorCode::invalid_argument, "request body must be a JSON object");
  const RequestFields fields(body);
  OptimizeRequest r;
  for (const char* key : {"params_b", "N"}) {
    auto v = fields.number(key);
    if (!v) return v.error();
    if (*v) r.params_b = *v;
  }
  std::optional<std::string> objective, precision;
  for (auto [key, field] : {std::pair{"model", &r.model}, std::pair{"gpu", &r.gpu}, std::pair{"arch", &r.arch},
                            std::pair{"engine", &r.engine}}) {
    auto v = fields.text(key);
    if (!v) return v.error();
    if (*v) *field = **v;
  }
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
  for (auto [key, field] : {std::pair{"batch", &r.batch}, std::pair{"ctx", &r.context}, std::pair{"context", &r.context}}) {
    auto v = fields.whole(key);
    if (!v) return v.error();
    if (*v) *field = *v;
  }
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
  auto borrow = fields.flag("allow_borrow");
  if (!borrow) return borrow.error();
  r.allow_borrow = borrow->value_or(false);
  return r;
}

namespace {
Json opt(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }
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
           {"energy_j_per_1k_tokens", opt(c.energy_mj_per_token)},
           {"energy_mj_per_token", opt(c.energy_mj_per_token)},
           {"energy_rel_fp16", c.delta_pct ? Json(1 + *c.delta_pct / 100) : Json(nullptr)},
           {"delta_pct_vs_fp16", opt(c.delta_pct)},
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
           {"relative_energy", opt(c.relative_energy)},
           {"basis_detail", {{"energy", c.energy_basis}, {"latency", c.latency_basis}, {"vram", c.vram_basis}}},
           {"delta_ppl_pct", opt(c.delta_ppl_pct)},
           {"kld", opt(c.kld)},
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
        return a1 && b1 ? opt(pct_of(*a1, *b1)) : Json(nullptr);
      };
      a["vs_recommended"] = Json{{"energy_pct", ratio(c.relative_energy, best.relative_energy)},
                                 {"latency_pct", opt(pct_of(c.latency_ms_per_token, best.latency_ms_per_token))},
                                 {"throughput_pct", opt(pct_of(c.throughput_tok_s, best.throughput_tok_s))},
                                 {"vram_pct", opt(pct_of(c.vram_gb, best.vram_gb))}};
    }
    alternatives.push_back(std::move(a));
  }
  j["alternatives"] = std::move(alternatives);
  Json pareto = Json::array();
  for (const Candidate& c : r.pareto_energy_latency) {
    pareto.push_back(Json{{"precision", c.precision},
                          {"batch", c.batch},
                          {"context", c.context},
                          {"energy_j_per_1k_tokens", opt(c.energy_mj_per_token)},
                          {"latency_ms_per_token", c.latency_ms_per_token},
                          {"throughput_tok_s", c.throughput_tok_s},
                          {"vram_gb", c.vram_gb},
                          {"relative_energy", opt(c.relative_energy)},
                          {"basis", figure_basis(c)},
                          {"feasible", c.feasible}});
  }
  j["pareto_energy_latency"] = std::move(pareto);
}

}  // namespace ecocompute::data
