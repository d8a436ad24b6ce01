// How sure the model is of its own variances, and what that does to a predictive interval. The
// variance components are estimates (REML from a handful of models, cards and batch sizes), so an
// interval that plugs them in is too short. The restricted likelihood of the log variance
// parameters θ is approximated as normal about its maximum (Laplace: Tierney & Kadane 1986), with
// covariance Σ_θ = 2 H⁻¹ (H: the Hessian of −2 log L_R). The predictive variance V(θ) is then
// approximately log-normal, ln V ~ N(ln V̂, s²), s² = ∇lnV' Σ_θ ∇lnV (delta method), and the
// predictive distribution of a new card's value is the normal variance mixture
// ∫ N(y; m, V) dLogNormal(V). Its 2.5 and 97.5 % quantiles are m ∓ k(s) √V̂, k(0) = 1.96, with k(s)
// computed by Gauss–Hermite quadrature. An effect drawn from its kind's prior adds the uncertainty
// of that prior variance: ln V_k has variance 2/(n − 1) when n estimates gave it.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "decide/dense_matrix.hpp"

namespace ecocompute::decide {

/// Σ_θ = 2 H⁻¹ from central differences of `objective` (−2 log L) at `at` with step `step`; nullopt
/// when H is not positive definite (a flat direction: a parameter the data do not determine there),
/// with `*flattest` set to the parameter of least curvature.
std::optional<Matrix> parameter_covariance(const std::function<double(const std::vector<double>&)>& objective,
                                           const std::vector<double>& at, double step, std::size_t* flattest);

/// P(Z·√(V/V̂) ≤ q) for Z standard normal and ln V ~ N(ln V̂, s²) (20-point Gauss–Hermite).
double mixture_cdf(double q, double log_variance_sd);

/// k(s): the 97.5 % quantile of Z·√(V/V̂) for Z standard normal and ln V ~ N(ln V̂, s²); s is
/// taken in [0, 5].
double mixture_quantile_factor(double log_variance_sd);

}  // namespace ecocompute::decide
