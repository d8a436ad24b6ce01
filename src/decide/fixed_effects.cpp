// Fixed-effect columns and the priors of unidentified effects (see fixed_effects.hpp).
#include "decide/fixed_effects.hpp"

#include <algorithm>
#include <cmath>

namespace ecocompute::decide {
namespace {

// Keeps the columns of `x` that add to its rank, in order (modified Gram–Schmidt).
std::vector<std::size_t> independent_columns(const Matrix& x) {
  std::vector<std::vector<double>> basis;
  std::vector<std::size_t> kept;
  for (std::size_t j = 0; j < x.cols; ++j) {
    std::vector<double> v(x.rows);
    double norm0 = 0;
    for (std::size_t i = 0; i < x.rows; ++i) norm0 += (v[i] = x(i, j)) * x(i, j);
    for (const std::vector<double>& b : basis) {
      const double proj = dot(v, b);
      for (std::size_t i = 0; i < v.size(); ++i) v[i] -= proj * b[i];
    }
    const double norm = std::sqrt(dot(v, v));
    if (norm0 == 0 || norm <= 1e-8 * std::sqrt(norm0)) continue;
    for (double& e : v) e /= norm;
    basis.push_back(std::move(v));
    kept.push_back(j);
  }
  return kept;
}

int kind_order(EffectKind k) { return static_cast<int>(k); }

}  // namespace

bool applies(const FixedEffect& e, const ModelPoint& p) {
  switch (e.kind) {
    case EffectKind::level: case EffectKind::size_slope: return p.key == e.group;
    case EffectKind::regime_level: case EffectKind::regime_slope: return p.engine == e.group && p.regime == e.regime;
    case EffectKind::context_slope: return p.key == e.group && p.context_group == e.regime;
  }
  return false;
}

double covariate(const FixedEffect& e, const ModelPoint& p, double mean_log_size) {
  if (!applies(e, p)) return 0.0;
  switch (e.kind) {
    case EffectKind::level: case EffectKind::regime_level: return 1.0;
    case EffectKind::size_slope: return p.log_size - mean_log_size;
    case EffectKind::regime_slope: return p.regime_coordinate;
    case EffectKind::context_slope: return p.context_covariate;
  }
  return 0.0;
}

EffectKindsAt::EffectKindsAt(const ModelPoint& p) {
  kinds_[count_++] = EffectKind::level;
  kinds_[count_++] = EffectKind::size_slope;
  if (p.regime > 0) {
    kinds_[count_++] = EffectKind::regime_level;
    kinds_[count_++] = EffectKind::regime_slope;
  }
  if (p.context_covariate > 0) kinds_[count_++] = EffectKind::context_slope;
}

FixedEffect effect_at(EffectKind kind, const ModelPoint& p) {
  switch (kind) {
    case EffectKind::level: case EffectKind::size_slope: return {kind, p.key, 0};
    case EffectKind::regime_level: case EffectKind::regime_slope: return {kind, p.engine, p.regime};
    case EffectKind::context_slope: return {kind, p.key, p.context_group};
  }
  return {kind, p.key, 0};
}

double covariate_at(EffectKind kind, const ModelPoint& p, double mean_log_size) {
  switch (kind) {
    case EffectKind::level: case EffectKind::regime_level: return 1.0;
    case EffectKind::size_slope: return p.log_size - mean_log_size;
    case EffectKind::regime_slope: return p.regime_coordinate;
    case EffectKind::context_slope: return p.context_covariate;
  }
  return 0.0;
}

std::vector<FixedEffect> effects_at(const ModelPoint& p) {
  std::vector<FixedEffect> out;
  for (EffectKind kind : EffectKindsAt(p)) out.push_back(effect_at(kind, p));
  return out;
}

Matrix Design::matrix(const std::vector<ModelPoint>& points) const {
  Matrix x(points.size(), effects.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    for (std::size_t j = 0; j < effects.size(); ++j) x(i, j) = covariate(effects[j], points[i], mean_log_size);
  }
  return x;
}

std::vector<double> Design::row(const ModelPoint& p) const {
  std::vector<double> r(effects.size());
  for (std::size_t j = 0; j < effects.size(); ++j) r[j] = covariate(effects[j], p, mean_log_size);
  return r;
}

std::optional<std::size_t> Design::index_of(const FixedEffect& effect) const {
  const auto it = std::find(effects.begin(), effects.end(), effect);
  if (it == effects.end()) return std::nullopt;
  return static_cast<std::size_t>(it - effects.begin());
}

bool Design::has(const FixedEffect& effect) const { return index_of(effect).has_value(); }

bool Design::has_at(EffectKind kind, const ModelPoint& p) const {
  // At a point, an effect of `kind` that applies there is the point's own (level and size slope
  // effects have regime 0, the others the point's regime or batch group: applies() checks them).
  return std::any_of(effects.begin(), effects.end(), [&](const FixedEffect& e) { return e.kind == kind && applies(e, p); });
}

Design make_design(const std::vector<ModelPoint>& points) {
  Design d;
  for (const ModelPoint& p : points) d.mean_log_size += p.log_size / static_cast<double>(points.size());
  std::vector<FixedEffect> candidates;
  for (const ModelPoint& p : points) {
    for (const FixedEffect& e : effects_at(p)) {
      if (std::find(candidates.begin(), candidates.end(), e) == candidates.end()) candidates.push_back(e);
    }
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const FixedEffect& a, const FixedEffect& b) { return kind_order(a.kind) < kind_order(b.kind); });
  d.effects = candidates;
  const Matrix x = d.matrix(points);
  std::vector<FixedEffect> kept;
  for (std::size_t j : independent_columns(x)) kept.push_back(candidates[j]);
  d.effects = std::move(kept);
  return d;
}

EffectPriors make_priors(const std::vector<EffectEstimate>& estimates) {
  EffectPriors out;
  for (EffectKind kind : {EffectKind::size_slope, EffectKind::regime_level, EffectKind::regime_slope, EffectKind::context_slope}) {
    std::vector<const EffectEstimate*> of;
    for (const EffectEstimate& e : estimates) {
      if (e.kind == kind) of.push_back(&e);
    }
    if (of.empty()) continue;
    EffectPrior p;
    p.estimates = static_cast<int>(of.size());
    if (of.size() == 1) {
      p.variance = of.front()->value * of.front()->value + of.front()->variance;
    } else {
      for (const EffectEstimate* e : of) p.mean += e->value / static_cast<double>(of.size());
      for (const EffectEstimate* e : of) p.variance += ((e->value - p.mean) * (e->value - p.mean) + e->variance) / static_cast<double>(of.size());
    }
    out[kind] = p;
  }
  return out;
}

std::string_view to_string(EffectKind kind) noexcept {
  switch (kind) {
    case EffectKind::level: return "level";
    case EffectKind::size_slope: return "size_slope";
    case EffectKind::regime_level: return "regime_level";
    case EffectKind::regime_slope: return "regime_slope";
    case EffectKind::context_slope: return "context_slope";
  }
  return "level";
}

void to_json(Json& j, const FixedEffect& e) { j = Json{{"kind", to_string(e.kind)}, {"group", e.group}, {"regime", e.regime}}; }

void from_json(const Json& j, FixedEffect& e) {
  const std::string kind = j.at("kind").get<std::string>();
  for (EffectKind k : {EffectKind::level, EffectKind::size_slope, EffectKind::regime_level, EffectKind::regime_slope,
                       EffectKind::context_slope}) {
    if (to_string(k) == kind) e.kind = k;
  }
  e.group = j.at("group").get<std::string>();
  e.regime = j.at("regime").get<int>();
}

void to_json(Json& j, const EffectPrior& p) { j = Json{{"mean", p.mean}, {"variance", p.variance}, {"estimates", p.estimates}}; }

void from_json(const Json& j, EffectPrior& p) {
  p.mean = j.at("mean").get<double>();
  p.variance = j.at("variance").get<double>();
  p.estimates = j.at("estimates").get<int>();
}

}  // namespace ecocompute::decide
