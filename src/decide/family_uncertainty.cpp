// The uncertainty of a family's predictive variances (see variance_uncertainty.hpp and family_fit.hpp).
#include <cmath>
#include <optional>

#include "decide/family_fit.hpp"
#include "decide/variance_uncertainty.hpp"
#include "util/parallel_for.hpp"

namespace ecocompute::decide {
namespace {

// Steps on the log scale of a variance: 10 % for the information matrix and for the gradient.
constexpr double kHessianStep = 0.1;
constexpr double kGradientStep = 0.1;
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
  perturbed_.clear();
  if (!theta_cov_) return;
  const std::vector<double> theta = get_components(free_, components_);
  // One factorization per free component (12 in the llama.cpp family, most of the time a stored model
  // takes to load): independent, so on every core.
  std::vector<std::optional<FamilyFit>> moved_fits(free_.size());
  parallel_for(free_.size(), [&](std::size_t j) {
    std::vector<double> moved = theta;
    moved[j] += kGradientStep;
    FamilyFit copy = variances_copy();
    VarianceComponents c = components_;
    set_components(free_, moved, card_floor, locations(), c);
    if (copy.finalize(priors_, c)) moved_fits[j] = std::move(copy);
  });
  for (std::optional<FamilyFit>& fit : moved_fits) {
    if (!fit) {
      perturbed_.clear();
      theta_cov_.reset();
      return;
    }
    perturbed_.push_back(std::move(*fit));
  }
}

// A moved copy answers variances only; it shares the model's places and their cells.
FamilyFit FamilyFit::variances_copy() const {
  FamilyFit copy;
  copy.family_ = family_;
  copy.locations_ = locations_;
  copy.design_ = design_;
  copy.table_ = table_;
  copy.components_ = components_;
  copy.priors_ = priors_;
  copy.second_stage_ = second_stage_;
  copy.objective_ = objective_;
  copy.first_design_ = first_design_;
  copy.variances_only_ = true;
  return copy;
}

// Where an unidentified slope is centred: the mean covariate of the measured points its level
// covers, so that at a measured size (or batch) the level alone answers, as the data say.
double FamilyFit::center_of(const FixedEffect& effect) const {
  double sum = 0;
  int n = 0;
  for (const Location& l : locations()) {
    if (!applies(effect, l.point)) continue;
    sum += covariate(effect, l.point, design_.mean_log_size);
    ++n;
  }
  return n > 0 && effect.kind != EffectKind::regime_level ? sum / n : 0.0;
}

double FamilyFit::log_variance_sd(const ModelPoint& p, const PointRow& row, const LatentPrediction& at) const {
  const double v = at.mean_var + at.card_var;
  if (!(v > 0)) return 0.0;
  double var_of_log_v = 0;
  if (theta_cov_) {
    // A moved copy has this fit's design and priors, so it answers wherever the fit does, from the
    // same row.
    std::vector<double> gradient(perturbed_.size());
    for (std::size_t j = 0; j < perturbed_.size(); ++j) {
      const FamilyFit& moved = perturbed_[j];
      const double moved_v = moved.mean_variance(p, row, moved.k_star(row)) + moved.components_.card_var(p.key);
      gradient[j] = std::log(moved_v / v) / kGradientStep;
    }
    var_of_log_v += quadratic_form(*theta_cov_, gradient);
  }
  for (const FixedEffect& e : effects_at(p)) {  // effects the data do not identify: drawn from their priors
    if (e.kind == EffectKind::level || first_design_.has(e)) continue;
    const auto prior = priors_.find(e.kind);
    if (prior == priors_.end()) continue;
    const double z = covariate(e, p, design_.mean_log_size) - center_of(e);
    const double share = prior->second.variance * z * z / v;  // d ln V / d ln V_k
    var_of_log_v += share * share * 2.0 / std::max(prior->second.estimates - 1, 1);
  }
  return std::sqrt(var_of_log_v);
}

}  // namespace ecocompute::decide
