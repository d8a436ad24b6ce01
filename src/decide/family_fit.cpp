// Fitting and predicting one family (see family_fit.hpp).
#include "decide/family_fit.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "decide/family_reml.hpp"
#include "decide/bounded_search.hpp"

namespace ecocompute::decide {
namespace {

// The search's first steps on log variances and log length scales: a factor e ≈ 2.7.
constexpr double kFirstStep = 1.0;
// A variance the start leaves at 0 starts at e^-4.6 ≈ 0.01 (a 10 % spread on the log scale).
constexpr double kFirstGuess = -4.6;
// Quasi-random starts besides the given one, over [e^-12, ceiling] for variances (e^-12 ≈ 6e-6 is
// below any between-card variance measured) and [0.05, ceiling] for length scales. On the llama.cpp
// evidence of 2026-12-04 (245 places, 11 components) 15 of 40 such starts, each searched to the end,
// reached the best optimum and the rest stopped 5–480 units of −2 ln L short; screening 16 starts
// and refining the best 4 reached it at every screening setting tried, in 2,400 evaluations
// against 10,000 for searching every start to the end (docs/decision-layer.md, "Estimation").
constexpr int kStarts = 16;
constexpr double kLowestStartVariance = -12.0;
constexpr double kShortestStartScale = -3.0;  // ln 0.05

std::string group_name(FreeComponent::Which w) {
  using W = FreeComponent::Which;
  switch (w) {
    case W::card: return "card";
    case W::shared: return "shared";
    case W::format: case W::size_scale: return "format";
    case W::arch: case W::arch_slope: return "arch";
    case W::gpu: return "gpu";
    case W::batch_shared: case W::batch_format: case W::batch_scale: return "batch";
  }
  return "card";
}

// The search's lower bound on a log component: a variance of e^-30, i.e. none.
constexpr double kLowestLog = -30.0;

// The search's point within [e^-30, the data's ceiling] for each component (component_ceilings).
std::vector<double> clamped(std::vector<double> x, const std::vector<double>& ceilings) {
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::clamp(x[i], kLowestLog, ceilings[i]);
  return x;
}

Design first_stage_design(const std::vector<Location>& locations) {
  std::vector<ModelPoint> points;
  for (const Location& l : locations) points.push_back(l.point);
  return make_design(points);
}

// The second stage's fixed effects: one level per format.
Design levels_only(const std::vector<Location>& locations, double mean_log_size) {
  Design d;
  d.mean_log_size = mean_log_size;
  for (const Location& l : locations) {
    const FixedEffect level{EffectKind::level, l.point.key, 0};
    if (!d.has(level)) d.effects.push_back(level);
  }
  return d;
}

}  // namespace

std::vector<Location> locations_of(const std::vector<Cell>& cells) {
  std::map<std::tuple<std::string, std::string, std::string, std::string, double, int, int>, Location> by_place;
  for (const Cell& c : cells) {
    const CellPlace& p = c.place;
    Location& l = by_place[{p.engine, p.precision, p.arch, p.gpu, p.params_b, p.batch, p.context}];
    if (l.values.empty()) {
      l.place = p;
      l.point = point_of(p);
      l.model = c.model;
    }
    l.values.push_back(c.value);
    l.within.push_back(c.within_var);
    l.sessions.push_back(c.session_id);
  }
  std::vector<Location> out;
  for (auto& [place, l] : by_place) {
    l.session_order = session_order(l.sessions);
    out.push_back(std::move(l));
  }
  return out;
}

namespace {

// The positions 0 … n−1 sorted by key(i), the first of each equal key kept.
template <typename Key>
std::vector<std::uint32_t> distinct_in_order(std::size_t n, Key key) {
  std::vector<std::uint32_t> order(n);
  for (std::uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return key(a) < key(b); });
  order.erase(std::unique(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return key(a) == key(b); }), order.end());
  return order;
}

}  // namespace

std::vector<std::uint32_t> session_order(const std::vector<std::string>& sessions, const std::vector<std::uint32_t>* rank) {
  if (rank != nullptr) return distinct_in_order(sessions.size(), [&](std::uint32_t i) { return (*rank)[i]; });
  return distinct_in_order(sessions.size(), [&](std::uint32_t i) -> const std::string& { return sessions[i]; });
}

std::optional<FamilyFit> FamilyFit::fit(std::string family, const std::vector<Cell>& cells, const VarianceComponents& start,
                                        double card_floor) {
  FamilyFit f;
  f.family_ = std::move(family);
  f.locations_ = std::make_shared<const std::vector<Location>>(locations_of(cells));
  if (f.locations().empty()) return std::nullopt;
  f.design_ = first_stage_design(f.locations());
  f.first_design_ = f.design_;
  f.lay_out_places();
  f.components_ = start;
  const std::vector<FreeComponent> free = identified_components(f.locations(), f.design_);
  const std::vector<double> ceilings = component_ceilings(free, f.locations());
  std::vector<double> x0 = clamped(get_components(free, f.components_), ceilings);
  for (double& v : x0) v = std::max(v, kFirstGuess);  // a component at 0 starts where the search can move it
  auto objective = [&](const std::vector<double>& x) {
    VarianceComponents c = f.components_;
    set_components(free, x, card_floor, f.locations(), c);
    return reml_objective(f.locations(), f.design_, c);
  };
  // The given start (a warm one: the whole evidence's fit for a calibration fold) is one start among
  // many, so the optimum does not depend on it; the moments' start is the data's own guess.
  std::vector<double> lowest;
  for (const FreeComponent& c : free) lowest.push_back(is_length_scale(c) ? kShortestStartScale : kLowestStartVariance);
  std::vector<double> highest = ceilings;
  for (std::size_t i = 0; i < free.size(); ++i) highest[i] = std::max(highest[i], lowest[i]);
  std::vector<std::vector<double>> starts{x0, moment_start(free, ceilings, f.locations(), card_floor)};
  for (std::vector<double>& p : halton_points(lowest, highest, kStarts)) starts.push_back(std::move(p));
  const Box box{std::vector<double>(free.size(), kLowestLog), ceilings};
  const int dimension = static_cast<int>(x0.size());
  const MultiStart how{.step = kFirstStep, .screen_tolerance = 0.1, .screen_evaluations = 12 * (dimension + 1),
                       .refine = 4, .tolerance = 1e-6, .max_evaluations = 400 * (dimension + 1), .agree = 0.01};
  const SearchResult best = best_of_starts(objective, starts, box, how);
  f.search_starts_ = best.starts;
  f.search_refined_ = best.refined;
  f.search_at_best_ = best.refined_at_best;
  set_components(free, best.x, card_floor, f.locations(), f.components_);  // inside the box: the search keeps its bounds
  f.objective_ = best.value;
  f.free_ = free;
  std::set<std::string> groups;
  for (const FreeComponent& c : free) groups.insert(group_name(c.which));
  f.identified_.assign(groups.begin(), groups.end());
  if (!f.factor()) return std::nullopt;
  return f;
}

std::optional<FamilyFit> FamilyFit::conditioned(const std::vector<Cell>& cells, double card_floor) const {
  auto f = restore(family_, stored_with(locations_of(cells)), card_floor);  // nullopt when no cell is left
  if (f) f->objective_ = reml_objective(f->locations(), f->first_design_, f->components_);
  return f;
}

std::optional<FamilyFit> FamilyFit::restore(std::string family, Stored stored, double card_floor) {
  FamilyFit f;
  f.family_ = std::move(family);
  if (stored.locations.empty()) return std::nullopt;
  f.locations_ = std::make_shared<const std::vector<Location>>(std::move(stored.locations));
  f.design_ = first_stage_design(f.locations());
  f.first_design_ = f.design_;
  f.lay_out_places();
  f.free_ = std::move(stored.free);
  f.identified_ = std::move(stored.identified);
  // The pooled between-card variance is a function of the free components and of the places two
  // sessions share: recomputed for these places, as every moved copy of prepare_uncertainty is.
  VarianceComponents components = stored.components;
  set_components(f.free_, get_components(f.free_, components), card_floor, f.locations(), components);
  if (!f.finalize(stored.priors, components)) return std::nullopt;
  f.objective_ = stored.objective;
  f.prepare_uncertainty(card_floor, stored.theta_covariance);
  return f;
}

FamilyFit::Stored FamilyFit::stored() const { return stored_with(locations()); }

FamilyFit::Stored FamilyFit::stored_with(std::vector<Location> locations) const {
  return Stored{std::move(locations), components_, priors_, free_, identified_, theta_cov_, objective_};
}

bool FamilyFit::finalize(const EffectPriors& priors, const VarianceComponents& components) {
  priors_ = priors;
  components_ = components;
  second_stage_ = true;
  design_ = levels_only(locations(), design_.mean_log_size);
  return factor();
}

double FamilyFit::prior_mean(const ModelPoint& p) const {
  if (!second_stage_) return 0.0;
  double m = 0;
  for (EffectKind kind : EffectKindsAt(p)) {
    const auto prior = priors_.find(kind);
    if (kind != EffectKind::level && prior != priors_.end()) m += prior->second.mean * covariate_at(kind, p, design_.mean_log_size);
  }
  return m;
}

// A regime its engine was measured in at one batch (in ln(b / b_r)) and asked about at that batch: its
// slope is not identified (the level's column carries level + slope·λ there) but not needed either.
bool FamilyFit::regime_measured_at_its_batch_only(const ModelPoint& p) const {
  bool measured = false;
  for (const Location& l : *locations_) {
    if (l.point.engine != p.engine || l.point.regime != p.regime) continue;
    if (l.point.regime_coordinate != p.regime_coordinate) return false;
    measured = true;
  }
  return measured;
}

// A kind of effect no family identified (so it has no prior) leaves a question unanswered where
// the effect would move it: another size than the format's measured ones, or a batch above 1 (but
// the one batch its regime was measured at).
bool FamilyFit::needs_missing_prior(const ModelPoint& p) const {
  for (EffectKind kind : EffectKindsAt(p)) {
    if (kind == EffectKind::level || priors_.contains(kind)) continue;
    if (kind == EffectKind::size_slope) {
      const std::vector<const Location*>& own = places_of(p.key);
      const bool measured_size = std::any_of(own.begin(), own.end(), [&](const Location* l) { return l->point.log_size == p.log_size; });
      if (!measured_size) return true;
    } else if (kind != EffectKind::regime_slope || !regime_measured_at_its_batch_only(p)) {
      return true;
    }
  }
  return false;
}

std::vector<PriorTerm> FamilyFit::prior_terms(const ModelPoint& a) const {
  std::vector<PriorTerm> terms;
  if (!second_stage_) return terms;
  for (EffectKind kind : EffectKindsAt(a)) {
    if (kind == EffectKind::level) continue;
    const auto prior = priors_.find(kind);
    if (prior == priors_.end()) continue;
    const double weight = prior->second.variance * covariate_at(kind, a, design_.mean_log_size);
    if (weight != 0) terms.push_back(PriorTerm{effect_at(kind, a), weight});
  }
  return terms;
}

double FamilyFit::covariance(const ModelPoint& a, const std::vector<PriorTerm>& a_terms, const ModelPoint& b) const {
  double v = components_.covariance(a, b, design_.mean_log_size);
  for (const PriorTerm& t : a_terms) v += t.weight * covariate(t.effect, b, design_.mean_log_size);
  return v;
}

void FamilyFit::lay_out_places() {
  std::vector<ModelPoint> points;
  auto by_key = std::make_shared<std::map<std::string, std::vector<const Location*>, std::less<>>>();
  for (const Location& l : locations()) {
    points.push_back(l.point);
    (*by_key)[l.point.key].push_back(&l);
  }
  table_ = std::make_shared<const PlaceCovariance>(points, design_.mean_log_size);
  places_by_key_ = std::move(by_key);
}

const std::vector<const Location*>& FamilyFit::places_of(const std::string& key) const {
  static const std::vector<const Location*> none;
  if (!places_by_key_) return none;
  const auto it = places_by_key_->find(key);
  return it != places_by_key_->end() ? it->second : none;
}

bool FamilyFit::factor() {
  const std::vector<Location>& places = locations();
  const std::size_t n = places.size();
  std::vector<ModelPoint> points;
  std::vector<double> y(n);
  Matrix k(n, n);
  for (std::size_t i = 0; i < n; ++i) {
    // The place's cells as their precision-weighted mean, with its variance 1/Σw, w = 1/(τ² + within).
    const Location& l = places[i];
    const double card = components_.card_var(l.point.key);
    double w_sum = 0, wy = 0;
    for (std::size_t m = 0; m < l.values.size(); ++m) {
      w_sum += 1.0 / (card + l.within[m]);
      wy += l.values[m] / (card + l.within[m]);
    }
    y[i] = wy / w_sum - prior_mean(l.point);
    k(i, i) = 1.0 / w_sum;
    points.push_back(l.point);
  }
  for (std::size_t i = 0; i < n; ++i) {
    const std::vector<double> row = k_star(point_row(points[i]));
    for (std::size_t j = 0; j < n; ++j) k(i, j) += row[j];
  }
  auto chol = cholesky(k);
  if (!chol) return false;
  factor_ = PackedLowerFactor(*chol);
  const Matrix x = design_.matrix(points);
  k_inverse_x_ = cholesky_solve(*chol, x);
  const auto xkx = cholesky(transpose_times(x, k_inverse_x_));
  if (!xkx) return false;
  beta_cov_ = cholesky_inverse(*xkx);
  beta_ = times(beta_cov_, transpose_times(k_inverse_x_, y));
  std::vector<double> r = y;
  const std::vector<double> fitted = times(x, beta_);
  for (std::size_t i = 0; i < n; ++i) r[i] -= fitted[i];
  alpha_ = cholesky_solve(*chol, r);
  return true;
}

FamilyFit::PointRow FamilyFit::point_row(const ModelPoint& p) const {
  PointRow row{design_.row(p), prior_terms(p), {}, {}};
  row.point = table_->point(p, row.terms);
  row.kernels = table_->kernels(row.point, components_.size_scale, components_.batch_scale);
  return row;
}

std::vector<double> FamilyFit::k_star(const PointRow& row) const { return table_->row(row.point, row.kernels, components_); }

double FamilyFit::mean_variance(const ModelPoint& p, const PointRow& row, const std::vector<double>& k_star,
                                Solved* solved) const {
  std::vector<double> r = row.x;
  const std::vector<double> xk = transpose_times(k_inverse_x_, k_star);
  for (std::size_t j = 0; j < r.size(); ++j) r[j] -= xk[j];
  // k*ᵀK⁻¹k* as |L⁻¹k*|²: one forward substitution, and no K⁻¹ to form when a model is factored.
  std::vector<double> z = factor_.forward_solve(k_star);
  const double v = std::max(covariance(p, row.terms, p) - dot(z, z) + quadratic_form(beta_cov_, r), 0.0);
  if (solved) *solved = Solved{std::move(z), std::move(r)};
  return v;
}

std::optional<LatentPrediction> FamilyFit::predict(const ModelPoint& p) const {
  if (!design_.has_at(EffectKind::level, p) || needs_missing_prior(p)) return std::nullopt;
  LatentPrediction out;
  const PointRow row = point_row(p);
  const std::vector<double> k = k_star(row);
  out.mean = dot(row.x, beta_) + prior_mean(p) + dot(k, alpha_);
  Solved solved;
  out.mean_var = mean_variance(p, row, k, &solved);
  out.card_var = components_.card_var(p.key);
  if (theta_cov_ || !priors_.empty()) out.log_variance_sd = log_variance_sd(p, row, out, solved);
  return out;
}

std::optional<double> FamilyFit::predict_mean(const ModelPoint& p) const {
  if (!design_.has_at(EffectKind::level, p) || needs_missing_prior(p)) return std::nullopt;
  const PointRow row = point_row(p);
  double mean = dot(row.x, beta_) + prior_mean(p);
  const std::vector<double> k = k_star(row);
  for (std::size_t i = 0; i < k.size(); ++i) mean += k[i] * alpha_[i];
  return mean;
}

std::vector<EffectEstimate> FamilyFit::estimates() const {
  std::vector<EffectEstimate> out;
  if (second_stage_) return out;
  for (std::size_t j = 0; j < design_.effects.size(); ++j) {
    const FixedEffect& e = design_.effects[j];
    if (e.kind == EffectKind::level) continue;
    out.push_back(EffectEstimate{e.kind, beta_[j], beta_cov_(j, j)});
  }
  return out;
}

}  // namespace ecocompute::decide
