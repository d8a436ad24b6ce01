// Estimator: answers from a measured anchor, a curve of the same architecture, or (said so) another
// architecture's curve; never a silent extrapolation.
#include "data/estimator.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "data/gpu_spec.hpp"
#include "data/model_size.hpp"
#include "util/precision.hpp"
#include "util/statistics.hpp"

namespace ecocompute::data {
namespace {

bool same_size(double a, double b) { return std::abs(a - b) <= 1e-6 * std::max(1.0, std::abs(a)); }

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::string w;
  std::istringstream in(text);
  while (in >> w) out.push_back(w);
  return out;
}

// Fills size, GPU/arch and precision from the published free-text query when they are not given.
void apply_free_text(EstimateRequest& r, bool precision_given) {
  if (r.q.empty()) return;
  if (!r.params_b && r.model.empty()) r.params_b = params_b_from_model_name(r.q);
  const auto tokens = words(r.q);
  for (std::size_t i = 0; i < tokens.size(); ++i) {
    if (r.arch.empty() && r.gpu.empty()) {
      if (auto a = parse_architecture(tokens[i])) {
        r.arch = *a;
      } else if (i + 1 < tokens.size() && find_gpu(tokens[i] + " " + tokens[i + 1])) {
        r.gpu = tokens[i] + " " + tokens[i + 1];
      } else if (tokens[i].size() > 1 && find_gpu(tokens[i]) && !params_b_from_model_name(tokens[i])) {
        r.gpu = tokens[i];
      }
    }
    if (!precision_given) {
      if (auto p = parse_precision(tokens[i]); p && !p->is_baseline) r.precision = p->name;
    }
  }
}

std::string signed_pct(double v) { return fmt::format("{:+.1f} %", v); }

}  // namespace

std::string recommend(std::optional<double> ci_low_pct, std::optional<double> ci_high_pct) {
  if (!ci_low_pct || !ci_high_pct) return "depends";
  if (*ci_high_pct < 0) return "quantize";
  if (*ci_low_pct > 0) return "do_not_quantize";
  return "depends";
}

std::optional<EnergyEstimate> estimate_fp16_energy(const Evidence& evidence, const std::string& arch,
                                                   const std::string& engine, double params_b) {
  // FP16 energy per token by session and size (mean over rows: several quantized rows share it).
  std::map<std::string, std::map<double, std::vector<double>>> by_session;
  for (const DataRow& r : evidence.rows) {
    if (r.gpu_arch != arch || r.engine != engine || r.basis != Basis::measured) continue;
    by_session[r.session_id][r.params_b].push_back(r.fp16_energy_per_token_mj);
  }
  const std::map<double, std::vector<double>>* best = nullptr;
  std::string best_session;
  for (const auto& [session, sizes] : by_session) {
    if (best == nullptr || sizes.size() > best->size()) {
      best = &sizes;
      best_session = session;
    }
  }
  if (best == nullptr || best->size() < 2) return std::nullopt;
  // Least squares of log E = a + b·log N over the sizes.
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = static_cast<double>(best->size());
  std::string gpu;
  for (const auto& [size, energies] : *best) {
    double mean = 0;
    for (double e : energies) mean += e / static_cast<double>(energies.size());
    const double x = std::log(size), y = std::log(mean);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  for (const DataRow& r : evidence.rows) {
    if (r.session_id == best_session) gpu = r.gpu;
  }
  std::string label = best_session;
  for (const Session& s : evidence.sessions) {
    if (s.id == best_session) label = s.label;
  }
  const double b = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  const double a = (sy - b * sx) / n;
  EnergyEstimate e;
  e.fp16_mj_per_token = std::exp(a + b * std::log(params_b));
  e.mj_per_token = e.fp16_mj_per_token;
  e.method = fmt::format("log-log fit of {} FP16 anchors on {} ({}): E = {:.1f} mJ × N^{:.3f}", best->size(), gpu,
                         label, std::exp(a), b);
  return e;
}

std::optional<QualityCost> find_quality_cost(const Evidence& evidence, const std::string& engine,
                                             const std::string& precision, double params_b) {
  const DataRow* best = nullptr;
  double best_distance = 0;
  for (const DataRow& r : evidence.rows) {
    if (r.engine != engine || r.precision != precision || r.basis != Basis::measured) continue;
    if (!r.delta_perplexity_pct()) continue;
    const double distance = std::abs(std::log(r.params_b / params_b));
    if (best == nullptr || distance < best_distance) {
      best = &r;
      best_distance = distance;
    }
  }
  if (best == nullptr) return std::nullopt;
  QualityCost q;
  q.delta_perplexity_pct = *best->delta_perplexity_pct();
  q.kld = best->kld;
  q.measured_at_b = best->params_b;
  q.model = best->model;
  if (same_size(best->params_b, params_b)) {
    q.basis = Basis::measured;
    q.note = fmt::format("perplexity {:+.1f} % vs FP16, measured on {} ({})", q.delta_perplexity_pct, best->model, best->gpu);
  } else {
    q.basis = Basis::borrowed;
    q.note = fmt::format("perplexity {:+.1f} % vs FP16 measured on {} ({:g} B), the nearest measured size, not at {:g} B",
                         q.delta_perplexity_pct, best->model, best->params_b, params_b);
  }
  return q;
}

Result<EstimateResponse> estimate(const EstimateRequest& request_in, const Evidence& evidence) {
  EstimateRequest request = request_in;
  apply_free_text(request, request_in.q.empty() || request_in.precision != defaults::estimate_precision);
  if (!request.params_b && !request.model.empty()) {
    request.params_b = params_b_from_model_name(request.model);
    if (!request.params_b) {
      return unexpected(ErrorCode::invalid_argument,
                        "cannot read a size from model name '" + request.model + "'; give params_b");
    }
  }
  if (!request.params_b) return unexpected(ErrorCode::invalid_argument, "params_b (or a model name with a size) is required");
  auto size = check_params_b(*request.params_b, "params_b");
  if (!size) return size.error();
  const double n = *size;
  if (request.batch < 1) return unexpected(ErrorCode::invalid_argument, "batch must be ≥ 1");
  if (request.context < 1) return unexpected(ErrorCode::invalid_argument, "ctx must be ≥ 1");
  auto precision = parse_precision(request.precision);
  if (!precision) return precision.error();
  if (precision->is_baseline) {
    return unexpected(ErrorCode::invalid_argument, "precision " + std::string(precision->name) + " is the baseline; ask about a quantized one");
  }
  std::string arch;
  if (!request.arch.empty()) {
    auto a = parse_architecture(request.arch);
    if (!a) return a.error();
    arch = *a;
  } else if (!request.gpu.empty()) {
    auto gpu = find_gpu(request.gpu);
    if (!gpu) return gpu.error();
    arch = gpu->arch;
  } else {
    return unexpected(ErrorCode::invalid_argument, "arch or gpu is required");
  }
  const std::string engine = request.engine.empty() ? std::string(precision->default_engine) : request.engine;

  EstimateResponse out;
  out.engine = engine;
  out.input = Json{{"params_b", n},         {"arch", arch},           {"gpu", request.gpu},
                   {"precision", std::string(precision->name)}, {"batch", request.batch}, {"ctx", request.context},
                   {"engine", engine},      {"model", request.model}, {"curve_source", to_string(evidence.curve_source)}};
  out.weight_gb = weight_gb(n, *precision);
  out.weight_gb_fp16 = weight_gb(n, *parse_precision("FP16"));
  if (request.batch != defaults::batch || request.context != defaults::context) {
    out.notes.push_back("the curves were measured at batch 1 with short prompts; batch and context are not modelled in ΔE");
  }

  const CurveKey key{arch, engine, std::string(precision->name)};
  const Curve* curve = evidence.curves.find(key);
  out.arch_used = arch;
  if (curve == nullptr) {
    // Another architecture's curve for the same engine and precision: one that covers the size first.
    const Curve* borrowed = nullptr;
    for (const Curve* c : evidence.curves.for_precision(engine, std::string(precision->name))) {
      if (borrowed == nullptr || (c->fit.covers(n) && !borrowed->fit.covers(n))) borrowed = c;
    }
    if (borrowed != nullptr) {
      curve = borrowed;
      out.arch_used = borrowed->key.gpu_arch;
      out.basis = Basis::borrowed;
      out.notes.push_back("no " + std::string(precision->name) + " curve for " + arch + " with " + engine + "; borrowed the " +
                          borrowed->key.gpu_arch + " curve");
    }
  }
  if (curve == nullptr) {
    out.basis = Basis::unavailable;
    out.confidence = "none";
    out.recommendation = "depends";
    out.verdict = fmt::format("No measurement or curve supports an estimate for {} with {} ({}); measure it.",
                              std::string(precision->name), engine, arch);
    out.notes.push_back("no curve for " + std::string(precision->name) + " with " + engine + " on any architecture");
  } else {
    out.curve = *curve;
    out.curve->fit.points.clear();
    out.crossover_b = curve->fit.crossover_b;
    for (const FitPoint& p : curve->fit.points) {
      std::string label = p.session_id;
      for (const Session& s : evidence.sessions) {
        if (s.id == p.session_id) label = s.label;
      }
      out.anchors.push_back(Anchor{p.params_b, p.delta_pct, p.n, p.model, label});
    }
    const FitPoint* anchor = nullptr;
    for (const FitPoint& p : curve->fit.points) {
      if (same_size(p.params_b, n)) anchor = &p;
    }
    const CurveValue value = curve->fit.at(n);
    if (anchor != nullptr && out.basis != Basis::borrowed) {
      out.basis = Basis::measured;
      out.modelled = false;
      out.delta_pct = anchor->delta_pct;
      if (anchor->se_pct && anchor->n >= 2) {
        const double half = student_t_critical(0.95, static_cast<std::size_t>(anchor->n - 1)) * *anchor->se_pct;
        out.ci_low_pct = anchor->delta_pct - half;
        out.ci_high_pct = anchor->delta_pct + half;
        out.ci_kind = "anchor CI";
      } else if (value.ci_low_pct) {
        out.ci_low_pct = anchor->delta_pct - (value.delta_pct - *value.ci_low_pct);
        out.ci_high_pct = anchor->delta_pct + (*value.ci_high_pct - value.delta_pct);
        out.ci_kind = "confidence band";
        out.notes.push_back("single measured anchor: CI width taken from the curve's confidence band");
      }
    } else {
      if (out.basis != Basis::borrowed) out.basis = curve->fit.covers(n) ? Basis::interpolated : Basis::extrapolated;
      out.modelled = true;
      out.delta_pct = value.delta_pct;
      if (value.ci_low_pct) {
        out.ci_low_pct = value.ci_low_pct;
        out.ci_high_pct = value.ci_high_pct;
        out.ci_kind = "confidence band";
      } else if (curve->fit.resid_std_pct > 0) {
        out.ci_low_pct = value.delta_pct - 1.96 * curve->fit.resid_std_pct;
        out.ci_high_pct = value.delta_pct + 1.96 * curve->fit.resid_std_pct;
        out.ci_kind = "resid_std";
      }
      if (out.basis == Basis::extrapolated || !curve->fit.covers(n)) {
        out.notes.push_back(fmt::format("{:g} B is outside the measured range {:g}–{:g} B: extrapolated", n,
                                        curve->fit.range_min_b, curve->fit.range_max_b));
      }
    }
    if (!out.ci_low_pct) out.notes.push_back("the curve has no residual degrees of freedom: no CI");
    if (!curve->session_ids.empty() && curve->source == "fit") {
      out.notes.push_back("curve fitted to session " + curve->session_label + " (" + to_string(curve->fit.weighting).data() +
                          "); sessions are not pooled");
    }
    out.recommendation = recommend(out.ci_low_pct, out.ci_high_pct);
    const bool narrow = out.ci_low_pct && (*out.ci_high_pct - *out.ci_low_pct) < 20;
    if (out.basis == Basis::measured && out.ci_kind == "anchor CI") {
      out.confidence = "high";
    } else if ((out.basis == Basis::measured || out.basis == Basis::interpolated) && narrow) {
      out.confidence = "medium";
    } else {
      out.confidence = "low";
    }
    const std::string ci_text =
        out.ci_low_pct ? fmt::format(" (95 % CI {} … {})", signed_pct(*out.ci_low_pct), signed_pct(*out.ci_high_pct)) : "";
    const char* effect = *out.delta_pct < 0 ? "saves" : "costs";
    out.verdict = fmt::format("{} {} {:.1f} % energy per token{} vs FP16 for a {:g} B model on {} with {} ({}{}).",
                              std::string(precision->name), effect, std::abs(*out.delta_pct), ci_text, n, out.arch_used, engine,
                              to_string(out.basis), out.basis == Basis::measured ? "" : " from a curve");
  }

  out.quality_cost = find_quality_cost(evidence, engine, std::string(precision->name), n);
  if (out.quality_cost) {
    out.verdict += " Quality: " + out.quality_cost->note + ".";
  } else {
    out.notes.push_back("no measured quality cost for " + std::string(precision->name) + " with " + engine);
  }
  if (auto energy = estimate_fp16_energy(evidence, out.arch_used, engine, n); energy && out.delta_pct) {
    energy->mj_per_token = energy->fp16_mj_per_token * (1 + *out.delta_pct / 100);
    out.energy_estimate = energy;
  }
  return out;
}

Result<EstimateRequest> estimate_request_from_json(const Json& body) {
  if (!body.is_object()) return unexpected(ErrorCode::invalid_argument, "request body must be a JSON object");
  EstimateRequest r;
  auto number = [&](const char* key) -> Result<std::optional<double>> {
    if (!body.contains(key) || body[key].is_null()) return std::optional<double>{};
    const Json& v = body[key];
    if (v.is_number()) return std::optional<double>{v.get<double>()};
    if (v.is_string()) {  // query strings arrive as text
      try {
        std::size_t used = 0;
        const std::string s = v.get<std::string>();
        const double d = std::stod(s, &used);
        if (used == s.size()) return std::optional<double>{d};
      } catch (const std::exception&) {
      }
    }
    return unexpected(ErrorCode::invalid_argument, std::string("field '") + key + "' must be a number");
  };
  auto text = [&](const char* key, std::string& out) -> Result<void> {
    if (!body.contains(key) || body[key].is_null()) return {};
    if (!body[key].is_string()) return unexpected(ErrorCode::invalid_argument, std::string("field '") + key + "' must be a string");
    out = body[key].get<std::string>();
    return {};
  };
  for (const char* key : {"params_b", "N"}) {
    auto v = number(key);
    if (!v) return v.error();
    if (*v) r.params_b = *v;
  }
  for (auto [key, field] : {std::pair{"model", &r.model}, std::pair{"q", &r.q}, std::pair{"gpu", &r.gpu},
                            std::pair{"arch", &r.arch}, std::pair{"precision", &r.precision},
                            std::pair{"engine", &r.engine}}) {
    if (auto ok = text(key, *field); !ok) return ok.error();
  }
  for (auto [key, field] : {std::pair{"batch", &r.batch}, std::pair{"ctx", &r.context}}) {
    auto v = number(key);
    if (!v) return v.error();
    if (*v) {
      if (**v != std::floor(**v) || **v < 1 || **v > 1e7) {
        return unexpected(ErrorCode::invalid_argument, std::string("field '") + key + "' must be a whole number ≥ 1");
      }
      *field = static_cast<int>(**v);
    }
  }
  return r;
}

namespace {
Json optional_number_json(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }
}  // namespace

void to_json(Json& j, const Anchor& a) {
  j = Json{{"params_b", a.params_b}, {"delta_pct", a.delta_pct}, {"n", a.n}, {"model", a.model}, {"session", a.session}};
}

void to_json(Json& j, const QualityCost& q) {
  j = Json{{"delta_perplexity_pct", q.delta_perplexity_pct}, {"kld", optional_number_json(q.kld)},
           {"measured_at_b", q.measured_at_b}, {"model", q.model}, {"basis", to_string(q.basis)}, {"note", q.note}};
}

void to_json(Json& j, const EnergyEstimate& e) {
  j = Json{{"fp16_mj_per_token", e.fp16_mj_per_token}, {"mj_per_token", e.mj_per_token}, {"method", e.method},
           {"label", e.label}};
}

void to_json(Json& j, const EstimateResponse& r) {
  j = Json{{"input", r.input},
           {"delta_pct", optional_number_json(r.delta_pct)},
           {"ci", r.ci_low_pct ? Json::array({*r.ci_low_pct, *r.ci_high_pct}) : Json(nullptr)},
           {"ci_kind", r.ci_kind},
           {"basis", to_string(r.basis)},
           {"confidence", r.confidence},
           {"recommendation", r.recommendation},
           {"verdict", r.verdict},
           {"crossover_b", optional_number_json(r.crossover_b)},
           {"anchors", r.anchors},
           {"arch_used", r.arch_used},
           {"modelled", r.modelled},
           {"weight_gb", r.weight_gb},
           {"weight_gb_fp16", r.weight_gb_fp16},
           {"notes", r.notes},
           {"engine", r.engine}};
  j["quality_cost"] = r.quality_cost ? Json(*r.quality_cost) : Json(nullptr);
  j["energy_estimate"] = r.energy_estimate ? Json(*r.energy_estimate) : Json(nullptr);
  j["curve"] = r.curve ? Json(*r.curve) : Json(nullptr);
}

}  // namespace ecocompute::data
