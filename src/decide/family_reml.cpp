// REML of a family's variance components (see family_reml.hpp and docs/decision-layer.md).
#include "decide/family_reml.hpp"

#include "decide/family_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

namespace ecocompute::decide {
namespace {

using Which = FreeComponent::Which;

// Places two or more sessions measured, per key: the degrees of freedom of τ² there.
std::map<std::string, int> replicated_df(const std::vector<Location>& locations) {
  std::map<std::string, int> df;
  for (const Location& l : locations) {
    if (l.values.size() >= 2) df[l.point.key] += static_cast<int>(l.values.size()) - 1;
  }
  return df;
}

// Whether some group (by `group_of`) holds at least `count` distinct values of `value_of`.
template <class GroupOf, class ValueOf>
bool some_group_has(const std::vector<Location>& locations, GroupOf group_of, ValueOf value_of, std::size_t count) {
  std::map<std::string, std::set<std::string>> seen;
  for (const Location& l : locations) seen[group_of(l)].insert(value_of(l));
  return std::any_of(seen.begin(), seen.end(), [&](const auto& g) { return g.second.size() >= count; });
}

std::string location_size_text(const Location& l) { return std::to_string(l.point.log_size); }

void batch_components(const std::vector<Location>& locations, const Design& design, std::vector<FreeComponent>& out) {
  std::size_t batched = 0, regime_effects = 0;
  for (const Location& l : locations) batched += l.point.regime > 0 && l.point.context == 0 ? 1 : 0;  // a context's own slope takes its place
  for (const FixedEffect& e : design.effects) {
    regime_effects += e.kind == EffectKind::regime_level || e.kind == EffectKind::regime_slope ? 1 : 0;
  }
  if (batched <= regime_effects) return;
  out.push_back({Which::batch_format, ""});
  out.push_back({Which::batch_scale, ""});
  const bool two_formats = some_group_has(
      locations, [](const Location& l) { return l.point.regime > 0 ? l.point.engine + std::to_string(l.point.regime) : std::string(); },
      [](const Location& l) { return l.point.regime > 0 ? l.point.key : std::string(); }, 2);
  if (two_formats) out.push_back({Which::batch_shared, ""});
}

double& component(VarianceComponents& c, const FreeComponent& f) {
  switch (f.which) {
    case Which::card: return c.card[f.key];
    case Which::shared: return c.shared;
    case Which::format: return c.format;
    case Which::size_scale: return c.size_scale;
    case Which::arch: return c.arch;
    case Which::arch_slope: return c.arch_slope;
    case Which::gpu: return c.gpu;
    case Which::batch_shared: return c.batch_shared;
    case Which::batch_format: return c.batch_format;
    case Which::batch_scale: return c.batch_scale;
  }
  return c.shared;
}

}  // namespace

std::vector<FreeComponent> identified_components(const std::vector<Location>& locations, const Design& design) {
  std::vector<FreeComponent> out;
  for (const auto& [key, df] : replicated_df(locations)) out.push_back({Which::card, key});
  const auto batch_one = [](const Location& l) { return l.point.regime == 0; };
  const bool formats_share_size = some_group_has(
      locations, [&](const Location& l) { return batch_one(l) ? l.point.engine + l.point.arch + location_size_text(l) : std::string(); },
      [&](const Location& l) { return batch_one(l) ? l.point.key : std::string(); }, 2);
  if (formats_share_size) out.push_back({Which::shared, ""});
  if (some_group_has(locations, [](const Location& l) { return l.point.key; }, location_size_text, 3)) {
    out.push_back({Which::format, ""});
    out.push_back({Which::size_scale, ""});
  }
  if (some_group_has(locations, [](const Location& l) { return l.point.key; }, [](const Location& l) { return l.point.arch; }, 2)) {
    out.push_back({Which::arch, ""});
    out.push_back({Which::arch_slope, ""});
  }
  if (some_group_has(locations, [](const Location& l) { return l.point.key + "|" + l.point.arch; },
                     [](const Location& l) { return l.point.gpu; }, 2)) {
    out.push_back({Which::gpu, ""});
  }
  batch_components(locations, design, out);
  return out;
}

std::vector<double> component_ceilings(const std::vector<FreeComponent>& free, const std::vector<Location>& locations) {
  double sum = 0, sum_sq = 0, n = 0;
  double u_min = INFINITY, u_max = -INFINITY, b_min = INFINITY, b_max = -INFINITY;
  for (const Location& l : locations) {
    for (double v : l.values) {
      sum += v;
      sum_sq += v * v;
      ++n;
    }
    u_min = std::min(u_min, l.point.log_size);
    u_max = std::max(u_max, l.point.log_size);
    if (l.point.regime > 0) {
      b_min = std::min(b_min, std::log(static_cast<double>(l.point.batch)));
      b_max = std::max(b_max, std::log(static_cast<double>(l.point.batch)));
    }
  }
  constexpr double kLowest = -30.0, kHighest = 5.0;  // the search's own bounds (a variance of e^±)
  auto bounded = [&](double value) { return value > 0 && std::isfinite(value) ? std::clamp(std::log(value), kLowest, kHighest) : kHighest; };
  const double total = n > 1 ? (sum_sq - sum * sum / n) / (n - 1) : 0.0;
  const double size_span = u_max - u_min, batch_span = b_max - b_min;
  std::vector<double> out;
  for (const FreeComponent& f : free) {
    switch (f.which) {
      case Which::size_scale: out.push_back(bounded(size_span)); break;
      case Which::batch_scale: out.push_back(bounded(batch_span)); break;
      case Which::arch_slope: out.push_back(bounded(total / (size_span * size_span))); break;
      default: out.push_back(bounded(total)); break;
    }
  }
  return out;
}

bool is_length_scale(const FreeComponent& c) { return c.which == Which::size_scale || c.which == Which::batch_scale; }

std::vector<double> moment_start(const std::vector<FreeComponent>& free, const std::vector<double>& ceilings,
                                 const std::vector<Location>& locations, double card_floor) {
  std::map<std::string, double> excess;  // Σ over replicated places of (n − 1)(s² − mean within)
  for (const Location& l : locations) {
    const std::size_t n = l.values.size();
    if (n < 2) continue;
    double mean = 0, within = 0;
    for (std::size_t m = 0; m < n; ++m) {
      mean += l.values[m] / static_cast<double>(n);
      within += l.within[m] / static_cast<double>(n);
    }
    double squares = 0;
    for (double v : l.values) squares += (v - mean) * (v - mean);
    excess[l.point.key] += squares - static_cast<double>(n - 1) * within;
  }
  const std::map<std::string, int> df = replicated_df(locations);
  std::vector<double> x;
  for (std::size_t i = 0; i < free.size(); ++i) {
    const FreeComponent& f = free[i];
    if (f.which == Which::card) {
      const auto d = df.find(f.key);
      const double tau2 = d == df.end() ? card_floor : excess[f.key] / d->second;
      x.push_back(std::min(std::log(std::max(tau2, card_floor)), ceilings[i]));
    } else if (is_length_scale(f)) {
      x.push_back(std::min(std::log(0.5), ceilings[i]));
    } else {
      x.push_back(ceilings[i]);
    }
  }
  return x;
}

void set_components(const std::vector<FreeComponent>& free, const std::vector<double>& x, double card_floor,
                    const std::vector<Location>& locations, VarianceComponents& c) {
  for (std::size_t i = 0; i < free.size(); ++i) {
    double v = std::exp(x[i]);
    if (free[i].which == Which::card) v = std::max(v, card_floor);
    component(c, free[i]) = v;
  }
  const std::map<std::string, int> df = replicated_df(locations);
  double sum = 0, total = 0;
  for (const auto& [key, n] : df) {
    sum += n * c.card_var(key);
    total += n;
  }
  if (total > 0) c.card_pooled = std::max(sum / total, card_floor);
}

std::vector<double> card_var_gradient(const std::vector<FreeComponent>& free, double card_floor,
                                      const std::vector<Location>& locations, const VarianceComponents& c,
                                      const std::string* key) {
  std::vector<double> g(free.size(), 0.0);
  const auto own_or_floor = [&](const std::string& k) {  // ∂τ²_k/∂x of the key's own component
    const double v = c.card_var(k);
    return v > card_floor ? v : 0.0;
  };
  if (key) {
    for (std::size_t j = 0; j < free.size(); ++j) {
      if (free[j].which == Which::card && free[j].key == *key) g[j] = own_or_floor(*key);
    }
    return g;
  }
  if (!(c.card_pooled > card_floor)) return g;
  const std::map<std::string, int> df = replicated_df(locations);
  double total = 0;
  for (const auto& [k, n] : df) total += n;
  for (std::size_t j = 0; j < free.size(); ++j) {
    const auto d = df.find(free[j].key);
    if (free[j].which == Which::card && d != df.end() && c.card.contains(free[j].key)) g[j] = d->second * own_or_floor(free[j].key) / total;
  }
  return g;
}

std::vector<double> get_components(const std::vector<FreeComponent>& free, const VarianceComponents& c) {
  std::vector<double> x;
  VarianceComponents copy = c;
  for (const FreeComponent& f : free) x.push_back(std::log(std::max(component(copy, f), std::exp(-30.0))));  // the search's lower bound
  return x;
}

double reml_objective(const std::vector<Location>& locations, const Design& design, const VarianceComponents& c) {
  const std::size_t n = locations.size();
  std::vector<ModelPoint> points;
  std::vector<double> y(n);
  Matrix k(n, n);
  double within_terms = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const Location& l = locations[i];
    const double card = c.card_var(l.point.key);
    double w_sum = 0, wy = 0;
    for (std::size_t m = 0; m < l.values.size(); ++m) {
      const double w = 1.0 / (card + l.within[m]);
      w_sum += w;
      wy += w * l.values[m];
      within_terms -= std::log(w);
    }
    y[i] = wy / w_sum;
    within_terms += std::log(w_sum);
    for (std::size_t m = 0; m < l.values.size(); ++m) within_terms += (l.values[m] - y[i]) * (l.values[m] - y[i]) / (card + l.within[m]);
    k(i, i) = 1.0 / w_sum;
    points.push_back(l.point);
  }
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j <= i; ++j) {
      const double v = c.covariance(points[i], points[j], design.mean_log_size);
      k(i, j) += v;
      if (i != j) k(j, i) = k(i, j);
    }
  }
  const auto chol = cholesky(k);
  if (!chol) return std::numeric_limits<double>::infinity();
  const Matrix x = design.matrix(points);
  const Matrix kx = cholesky_solve(*chol, x);
  const auto xkx = cholesky(transpose_times(x, kx));
  if (!xkx) return std::numeric_limits<double>::infinity();
  const std::vector<double> ky = cholesky_solve(*chol, y);
  const std::vector<double> beta = cholesky_solve(*xkx, transpose_times(x, ky));
  std::vector<double> r = y;
  const std::vector<double> fitted = times(x, beta);
  for (std::size_t i = 0; i < n; ++i) r[i] -= fitted[i];
  return within_terms + log_det(*chol) + log_det(*xkx) + dot(r, cholesky_solve(*chol, r));
}

}  // namespace ecocompute::decide
