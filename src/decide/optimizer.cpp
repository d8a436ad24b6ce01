// Optimizer: expands the grid, scores each configuration on its own (config_score), applies the
// constraints and ranks. The published objectives and constraints keep their meaning; the ranking
// uses each configuration's energy per token as the decision model predicts it for the GPU, relative
// to F16 at batch 1 there: the same figures estimate gives, one baseline for every configuration.
#include "decide/optimizer.hpp"
#include "util/quoted_input.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "decide/config_score.hpp"
#include "decide/memory_fit.hpp"
#include "data/gpu_spec.hpp"
#include "data/model_size.hpp"
#include "data/pareto_front.hpp"
#include "util/precision.hpp"

namespace ecocompute::decide {

using data::Basis;
using data::GpuSpec;
using data::find_gpu;
using data::representative_gpu;
using data::check_params_b;
using data::check_batch_size;
using data::check_context_length;
using data::pareto_front;
using data::ParetoPoint;
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

// The values in first-seen order, each once: a repeated value adds work and no answer.
std::vector<int> distinct(const std::vector<int>& values) {
  std::vector<int> out;
  for (int v : values) {
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}

// The grid's bounds (optimizer.hpp), checked on the distinct values; the error says the cap.
std::optional<Error> grid_size_error(std::size_t precisions, std::size_t batches, std::size_t contexts) {
  for (const auto& [name, count] : {std::pair{"precisions", precisions}, std::pair{"batches", batches}, std::pair{"contexts", contexts}}) {
    if (count > kMaxGridValues) {
      return Error{ErrorCode::invalid_argument,
                   fmt::format("{} has {} distinct values; at most {} are searched in one request", name, count, kMaxGridValues)};
    }
  }
  if (const std::size_t total = precisions * batches * contexts; total > kMaxGridCandidates) {
    return Error{ErrorCode::invalid_argument,
                 fmt::format("the grid has {} configurations ({} precisions × {} batches × {} contexts); at most {} are "
                             "scored in one request",
                             total, precisions, batches, contexts, kMaxGridCandidates)};
  }
  return std::nullopt;
}

Result<Grid> checked_grid(const OptimizeRequest& request) {
  std::optional<double> size = request.params_b;
  std::optional<double> active;
  if (!size && !request.model.empty()) {
    if (const auto named = data::model_size_from_name(request.model)) {
      size = named->total_b;
      active = named->active_b;
    }
  }
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
  Grid grid{ConfigQuestion{*checked, active, *gpu, !request.gpu.empty(), request.allow_borrow, request.model},
            {},
            distinct(request.batch ? std::vector<int>{*request.batch} : request.batches),
            distinct(request.context ? std::vector<int>{*request.context} : request.contexts)};
  for (int b : grid.batches) {
    if (auto bounded = check_batch_size(b, "every batch size"); !bounded) return bounded.error();
  }
  for (int c : grid.contexts) {
    if (auto bounded = check_context_length(c, "every context"); !bounded) return bounded.error();
  }
  if (grid.batches.empty() || grid.contexts.empty() || request.precisions.empty()) {
    return unexpected(ErrorCode::invalid_argument, "the grid is empty (precisions, batches and contexts need a value each)");
  }
  for (const std::string& name : request.precisions) {
    auto p = parse_precision(name);
    if (!p) return p.error();
    const bool seen = std::any_of(grid.precisions.begin(), grid.precisions.end(), [&](const PrecisionInfo& q) { return q.name == p->name; });
    if (!seen) grid.precisions.push_back(*p);
  }
  if (auto too_large = grid_size_error(grid.precisions.size(), grid.batches.size(), grid.contexts.size())) return *too_large;
  return grid;
}

Json input_echo(const OptimizeRequest& request, const Grid& grid, std::size_t candidates) {
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
               {{"max_latency_ms", json_or_null(request.max_latency_ms)},
                {"max_vram_gb", json_or_null(request.max_vram_gb)},
                {"min_throughput", json_or_null(request.min_throughput)},
                {"max_delta_ppl_pct", json_or_null(request.max_delta_ppl_pct)},
                {"max_kld", json_or_null(request.max_kld)}}},
              {"grid", {{"precisions", precisions}, {"batches", grid.batches}, {"contexts", grid.contexts}, {"candidates", candidates}}}};
}

struct QualityFigure {
  const char* name;
  const char* unit;
  std::optional<double> value, low, high;
};

// Why a quality cost does not meet a ceiling (with its basis, so that a transferred figure reads as one),
// or nothing when it does.
std::optional<std::string> quality_violation(const data::FormatQualityCost& q, const QualityFigure& f, data::QualityCheck check,
                                             double ceiling) {
  if (check == data::QualityCheck::within) return std::nullopt;
  if (check == data::QualityCheck::unknown) return fmt::format("quality unknown: no {} figure for {} ({})", f.name, q.precision, q.reason.empty() ? q.basis_text : q.reason);
  const std::string interval = f.low && f.high ? fmt::format(" ({:.3g} … {:.3g}{})", *f.low, *f.high, f.unit) : "";
  if (check == data::QualityCheck::exceeds) {
    return fmt::format("{} {:+.3g}{}{} > {:g}{}, {}", f.name, *f.value, f.unit, interval, ceiling, f.unit, q.basis_text);
  }
  return fmt::format("{} {:+.3g}{}{} may exceed {:g}{}: the interval straddles it, {}", f.name, *f.value, f.unit, interval, ceiling, f.unit,
                     q.basis_text);
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
  // FP16 is the reference (no quality cost). A format passes only when its whole interval is under the
  // ceiling: one whose interval straddles it is not known to meet it.
  if (c.quality && request.max_delta_ppl_pct) {
    const QualityFigure ppl{"perplexity", "%", c.quality->delta_ppl_pct, c.quality->delta_ppl_pct_low, c.quality->delta_ppl_pct_high};
    if (auto why = quality_violation(*c.quality, ppl, data::check_delta_ppl_pct(*c.quality, *request.max_delta_ppl_pct), *request.max_delta_ppl_pct)) {
      violate(std::move(*why));
    }
  }
  if (c.quality && request.max_kld) {
    const QualityFigure kld{"KL divergence", "", c.quality->kld, c.quality->kld_low, c.quality->kld_high};
    if (auto why = quality_violation(*c.quality, kld, data::check_kld(*c.quality, *request.max_kld), *request.max_kld)) violate(std::move(*why));
  }
  if (request.objective == Objective::min_energy && !c.relative_energy) violate("energy unknown (basis unavailable)");
}

// Ranks the candidates into the answer: the recommendation, alternatives, the closest infeasible
// candidate and the energy/latency Pareto front.
void rank(const OptimizeRequest& request, const GpuSpec& gpu, OptimizeResponse& out) {
  // Ranked by reference: only the few shown are copied into the answer.
  std::vector<const Candidate*> feasible, infeasible;
  for (const Candidate& c : out.candidates) (c.feasible ? feasible : infeasible).push_back(&c);
  std::sort(feasible.begin(), feasible.end(), [&](const Candidate* a, const Candidate* b) { return better(*a, *b, request.objective); });
  out.feasible_count = static_cast<int>(feasible.size());
  if (!feasible.empty()) {
    out.recommended = *feasible.front();
    for (std::size_t i = 1; i < feasible.size() && i <= kAlternatives; ++i) out.alternatives.push_back(*feasible[i]);
    if (out.recommended->energy_basis.basis == Basis::modelled) {
      const auto unmodelled = std::find_if(feasible.begin(), feasible.end(), [](const Candidate* c) {
        return c->energy_basis.basis != Basis::modelled && c->relative_energy;
      });
      if (unmodelled != feasible.end()) out.best_unmodelled = **unmodelled;
    }
  } else {
    out.notes.push_back("no configuration satisfies every constraint: the closest one is shown; consider relaxing the binding limit");
  }
  if (!infeasible.empty()) {
    out.closest_infeasible = **std::min_element(infeasible.begin(), infeasible.end(), [&](const Candidate* a, const Candidate* b) {
      const double va = violation_size(*a, request, gpu.memory_gb), vb = violation_size(*b, request, gpu.memory_gb);
      if (va != vb) return va < vb;
      return better(*a, *b, request.objective);
    });
  }
  // Only candidates with an energy are on the energy/latency front.
  std::vector<const Candidate*> scored;
  std::vector<ParetoPoint> points;
  for (const Candidate& c : out.candidates) {
    if (!c.relative_energy) continue;
    scored.push_back(&c);
    points.push_back({*c.relative_energy, c.latency_ms_per_token});
  }
  for (std::size_t i : pareto_front(points)) out.pareto_energy_latency.push_back(*scored[i]);
}

// F16's energy per token at batch 1 and `context` on the question's GPU: the denominator of every
// configuration's relative energy (none when F16 has no prediction there).
std::optional<double> fp16_energy_at_batch_one(const ConfigQuestion& question, const std::string& engine, int context,
                                               const Evidence& evidence, KeptF16& kept_f16) {
  auto baseline = parse_precision("F16");
  if (!baseline) return std::nullopt;
  std::shared_ptr<const data::FormatQualityCost> no_quality;  // F16 is the baseline: none is asked
  auto scored = score_config(question, *baseline, engine, 1, context, std::nullopt, evidence, no_quality, &kept_f16, BasisDetail::kind_only);
  if (!scored) return std::nullopt;
  return scored->energy_mj_per_token;
}

// The grid was scored with its bases' kinds alone; the candidates the answer shows get theirs in full,
// scored again with every label (the same figures: a score depends on its configuration only).
Result<void> describe_shown(OptimizeResponse& out, const ConfigQuestion& question, const Evidence& evidence) {
  std::vector<Candidate*> shown;
  for (std::optional<Candidate>* c : {&out.recommended, &out.closest_infeasible, &out.best_unmodelled}) {
    if (*c) shown.push_back(&**c);
  }
  for (Candidate& c : out.alternatives) shown.push_back(&c);
  for (Candidate* described : shown) {
    Candidate& c = *described;
    auto precision = parse_precision(c.precision);
    if (!precision) return precision.error();
    std::shared_ptr<const data::FormatQualityCost> quality = c.quality;
    auto full = score_config(question, *precision, c.engine, c.batch, c.context, std::nullopt, evidence, quality);
    if (!full) return full.error();
    c.energy_basis = std::move(full->energy_basis);
    c.latency_basis = std::move(full->latency_basis);
    c.vram_basis = std::move(full->vram_basis);
  }
  return {};
}

std::string describe(const Candidate& c) {
  return fmt::format("{} batch {} context {}", c.precision, c.batch, c.context);
}

void add_notes(OptimizeResponse& out, const Grid& grid) {
  const GpuSpec& gpu = grid.question.gpu;
  out.notes.push_back(fmt::format("latency and throughput: roofline of the {} datasheet ({:g} GB/s, {:g} TFLOP/s FP16), an "
                                  "ideal-kernel lower bound (modelled, not measured); memory: weights + KV cache ({:g} KiB per token "
                                  "per billion parameters), runtime buffers not included (modelled)",
                                  gpu.name, gpu.memory_bandwidth_gbps, gpu.fp16_tflops, kKvBytesPerTokenPerBillion / 1024));
  out.notes.push_back("energy: the decision model's prediction for a card of this GPU model, the same as estimate gives for each "
                      "configuration: measured where a session measured that format, size and batch, else read, extrapolated, "
                      "borrowed or modelled as each configuration's basis says, with a 95 % predictive interval");
  out.notes.push_back("the ranking uses each configuration's energy per token relative to F16 at batch 1 and the same context on "
                      "this GPU: one baseline for every configuration");
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
  return unexpected(ErrorCode::invalid_argument, "unknown objective " + quoted_input(text) +
                                                     " (min_energy, min_latency, max_throughput, min_vram)");
}

Result<OptimizeResponse> optimize(const OptimizeRequest& request, const Evidence& evidence, const CpuBudget* budget) {
  auto grid = checked_grid(request);
  if (!grid) return grid.error();
  OptimizeResponse out;
  std::map<std::pair<std::string, int>, std::optional<double>> fp16_batch_one;  // (engine, context) → mJ per token
  KeptF16 kept_f16;
  const std::size_t total = grid->precisions.size() * grid->batches.size() * grid->contexts.size();
  out.candidates.reserve(total);
  for (const PrecisionInfo& p : grid->precisions) {
    const std::string engine = request.engine.empty() ? std::string(p.default_engine) : request.engine;
    std::shared_ptr<const data::FormatQualityCost> quality;  // the format's, answered at its first configuration
    for (int batch : grid->batches) {
      for (int context : grid->contexts) {
        // Checked before each configuration: CpuBudget reads the thread's CPU clock (a system call) only
        // once the wall clock says the budget could be spent.
        if (budget != nullptr && budget->exhausted()) {
          return unexpected(ErrorCode::invalid_argument,
                            fmt::format("the request used its CPU budget of {} ms after {} of {} configurations; ask for "
                                        "fewer precisions, batches or contexts",
                                        budget->limit().count(), out.candidates.size(), total));
        }
        auto [baseline, added] = fp16_batch_one.try_emplace({engine, context});
        if (added) baseline->second = fp16_energy_at_batch_one(grid->question, engine, context, evidence, kept_f16);
        auto scored =
            score_config(grid->question, p, engine, batch, context, baseline->second, evidence, quality, &kept_f16, BasisDetail::kind_only);
        if (!scored && context > kBaselineContext) {  // evidence with nothing measured that long: this context only
          out.skipped[fmt::format("{} at context {}", p.name, context)] = scored.error().message();
          continue;
        }
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
  if (auto described = describe_shown(out, grid->question, evidence); !described) return described.error();
  add_notes(out, *grid);
  return out;
}

}  // namespace ecocompute::decide
