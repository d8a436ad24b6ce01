// Laplace covariance of the variance parameters and the variance-mixture quantile (see
// variance_uncertainty.hpp).
#include "decide/variance_uncertainty.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

namespace ecocompute::decide {
namespace {

// Gauss–Hermite nodes and weights (physicists' form, 20 points, positive half; symmetric).
constexpr std::array<double, 10> kNodes{0.2453407083009012, 0.7374737285453944, 1.2340762153953231, 1.7385377121165861,
                                        2.2549740020892757, 2.7888060584281305, 3.3478545673832163, 3.9447640401156252,
                                        4.6036824495507442, 5.3874808900112328};
constexpr std::array<double, 10> kWeights{4.622436696006100e-01, 2.866755053628341e-01, 1.090172060200233e-01,
                                          2.481052088746361e-02, 3.243773342237862e-03, 2.283386360163540e-04,
                                          7.802556478532064e-06, 1.086069370769282e-07, 4.399340992273181e-10,
                                          2.229393645534151e-13};

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }

// P(Z √(V/V̂) ≤ q) with ln(V/V̂) ~ N(0, s²).
double mixture_cdf(double q, double s) {
  double sum = 0;
  for (std::size_t i = 0; i < kNodes.size(); ++i) {
    for (double sign : {-1.0, 1.0}) {
      const double log_ratio = sign * std::numbers::sqrt2 * s * kNodes[i];
      sum += kWeights[i] * normal_cdf(q / std::exp(0.5 * log_ratio));
    }
  }
  return sum / std::sqrt(std::numbers::pi);
}

}  // namespace

std::optional<Matrix> parameter_covariance(const std::function<double(const std::vector<double>&)>& objective,
                                           const std::vector<double>& at, double step, std::size_t* flattest) {
  const std::size_t n = at.size();
  Matrix h(n, n);
  const double f0 = objective(at);
  auto shifted = [&](std::size_t i, double di, std::size_t j, double dj) {
    std::vector<double> x = at;
    x[i] += di;
    x[j] += dj;
    return objective(x);
  };
  for (std::size_t i = 0; i < n; ++i) {
    h(i, i) = (shifted(i, step, i, 0) - 2 * f0 + shifted(i, -step, i, 0)) / (step * step);
    for (std::size_t j = 0; j < i; ++j) {
      const double d = (shifted(i, step, j, step) - shifted(i, step, j, -step) - shifted(i, -step, j, step) +
                        shifted(i, -step, j, -step)) / (4 * step * step);
      h(i, j) = h(j, i) = d;
    }
  }
  std::size_t least = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!(h(i, i) >= h(least, least)) || !std::isfinite(h(i, i))) least = i;
  }
  *flattest = least;
  for (double v : h.a) {
    if (!std::isfinite(v)) return std::nullopt;
  }
  const auto chol = cholesky(h);
  if (!chol) return std::nullopt;
  Matrix cov = cholesky_inverse(*chol);
  for (double& v : cov.a) v *= 2;
  return cov;
}

double mixture_quantile_factor(double log_variance_sd) {
  const double s = std::clamp(log_variance_sd, 0.0, 5.0);
  if (s < 1e-6) return 1.959963984540054;
  double lo = 1.9, hi = 1.96 * std::exp(0.5 * 3.5 * s) + 2.0;  // the quantile lies below the 3.5-sd variance's
  for (int i = 0; i < 60; ++i) {
    const double mid = 0.5 * (lo + hi);
    (mixture_cdf(mid, s) < 0.975 ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace ecocompute::decide
