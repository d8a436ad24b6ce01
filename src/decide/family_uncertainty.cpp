// The uncertainty of a family's predictive variances (see variance_uncertainty.hpp and family_fit.hpp).
#include <cmath>
#include <optional>

#include "decide/family_fit.hpp"
#include "decide/variance_uncertainty.hpp"

namespace ecocompute::decide {
namespace {

// The step on the log scale of a variance for the information matrix: 10 %.
constexpr double kHessianStep = 0.1;
// A component whose log value is below this is at its lower bound (a variance of ~2e-9): it carries
// no information about itself there and is held fixed.
constexpr double kAtLowerBound = -20.0;

}  // namespace

void FamilyFit::prepare_uncertainty(double card_floor) {
  std::vector<std::size_t> active;
  const std::vector<double> theta = get_components(free_, components_);
  for (std::size_t i = 0; i < free_.size(); ++i) {
    const bool at_floor = free_[i].which == FreeComponent::Which::card && components_.card_var(free_[i].key) <= card_floor * (1 + 1e-9);
    if (theta[i] > kAtLowerBound && !at_floor) active.push_back(i);
  }
  // A direction the likelihood is flat or curved the wrong way in (a variance it does not bound
  // there) is held at its estimate: the least curved one first, until the rest is positive definite.
  std::optional<Matrix> small;
  std::vector<double> at;
  while (!active.empty()) {
    at.clear();
    for (std::size_t i : active) at.push_back(theta[i]);
    auto objective = [&](const std::vector<double>& x) {
      std::vector<double> all = theta;
      for (std::size_t k = 0; k < active.size(); ++k) all[active[k]] = x[k];
      VarianceComponents c = components_;
      set_components(free_, all, card_floor, locations(), c);
      return reml_objective(locations(), first_design_, c);
    };
    std::size_t flattest = 0;
    small = parameter_covariance(objective, at, kHessianStep, &flattest);
    if (small) break;
    active.erase(active.begin() + static_cast<std::ptrdiff_t>(flattest));
  }
  std::optional<Matrix> cov;
  if (small) {  // back on all free components; the held ones with no variance
    cov = Matrix(free_.size(), free_.size());
    for (std::size_t a = 0; a < active.size(); ++a) {
      for (std::size_t b = 0; b < active.size(); ++b) (*cov)(active[a], active[b]) = (*small)(a, b);
    }
  }
  prepare_uncertainty(card_floor, cov);
}

void FamilyFit::prepare_uncertainty(double card_floor, const std::optional<Matrix>& theta_covariance) {
  theta_cov_ = theta_covariance;
  gradient_.reset();
  if (theta_cov_) gradient_ = std::make_shared<const VarianceGradient>(table_, locations(), free_, components_, card_floor);
}

// Where an unidentified slope is centred: the mean covariate of the measured points its level
// covers, so that at a measured size (or batch) the level alone answers, as the data say. An effect
// of a format (level, size and context slopes) applies only at that format's places, so only they
// are read, in the order of locations(); a regime's level is not centred.
double FamilyFit::center_of(const FixedEffect& effect) const {
  if (effect.kind == EffectKind::regime_level) return 0.0;
  double sum = 0;
  int n = 0;
  const auto add = [&](const Location& l) {
    if (!applies(effect, l.point)) return;
    sum += covariate(effect, l.point, design_.mean_log_size);
    ++n;
  };
  if (effect.kind == EffectKind::regime_slope) {
    for (const Location& l : locations()) add(l);
  } else {
    for (const Location* l : places_of(effect.group)) add(*l);
  }
  return n > 0 ? sum / n : 0.0;
}

std::vector<double> FamilyFit::log_variance_gradient(const ModelPoint& p, const PointRow& row, const Solved& solved,
                                                     double v) const {
  // w = K⁻¹k* + K⁻¹X C r (variance_gradient.hpp): the back substitution of L⁻¹k*, and the fixed
  // effects' share.
  std::vector<double> w = factor_.backward_solve(solved.z);
  const std::vector<double> shift = times(k_inverse_x_, times(beta_cov_, solved.r));
  for (std::size_t i = 0; i < w.size(); ++i) w[i] += shift[i];
  std::vector<double> g = gradient_->at(row.point, row.kernels, p.key, w);
  for (double& x : g) x /= v;
  return g;
}

std::vector<double> FamilyFit::log_variance_gradient(const ModelPoint& p) const {
  if (!gradient_ || !design_.has_at(EffectKind::level, p) || needs_missing_prior(p)) return {};
  const PointRow row = point_row(p);
  Solved solved;
  const double v = mean_variance(p, row, k_star(row), &solved) + components_.card_var(p.key);
  return log_variance_gradient(p, row, solved, v);
}

double FamilyFit::log_variance_sd(const ModelPoint& p, const PointRow& row, const LatentPrediction& at,
                                  const Solved& solved) const {
  const double v = at.mean_var + at.card_var;
  if (!(v > 0)) return 0.0;
  double var_of_log_v = 0;
  if (gradient_) var_of_log_v += quadratic_form(*theta_cov_, log_variance_gradient(p, row, solved, v));
  for (EffectKind kind : EffectKindsAt(p)) {  // effects the data do not identify: drawn from their priors
    if (kind == EffectKind::level || first_design_.has_at(kind, p)) continue;
    const auto prior = priors_.find(kind);
    if (prior == priors_.end()) continue;
    const double z = covariate_at(kind, p, design_.mean_log_size) - center_of(effect_at(kind, p));
    const double share = prior->second.variance * z * z / v;  // d ln V / d ln V_k
    var_of_log_v += share * share * 2.0 / std::max(prior->second.estimates - 1, 1);
  }
  return std::sqrt(var_of_log_v);
}

}  // namespace ecocompute::decide
