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

// The variance mixture at one s: its 20 scales √(V/V̂) at the nodes and their weights, worked out
// once so that each step of the quantile's search costs one erfc and one exp per node.
class Mixture {
 public:
  explicit Mixture(double s) {
    for (std::size_t i = 0; i < kNodes.size(); ++i) {
      // The nodes ±x: their scales e^{±s·x/√2} are each other's reciprocals.
      const double up = std::exp(0.5 * std::numbers::sqrt2 * s * kNodes[i]);
      inverse_scale_[2 * i] = up;
      inverse_scale_[2 * i + 1] = 1.0 / up;
      weight_[2 * i] = weight_[2 * i + 1] = kWeights[i] / std::sqrt(std::numbers::pi);
    }
  }
  // P(Z √(V/V̂) ≤ q) with ln(V/V̂) ~ N(0, s²), and its density at q.
  [[nodiscard]] double cdf(double q) const {
    double sum = 0;
    for (std::size_t k = 0; k < weight_.size(); ++k) sum += weight_[k] * 0.5 * std::erfc(-q * inverse_scale_[k] / std::numbers::sqrt2);
    return sum;
  }
  [[nodiscard]] double pdf(double q) const {
    double sum = 0;
    for (std::size_t k = 0; k < weight_.size(); ++k) {
      const double z = q * inverse_scale_[k];
      sum += weight_[k] * inverse_scale_[k] * std::exp(-0.5 * z * z);
    }
    return sum * std::numbers::inv_sqrtpi / std::numbers::sqrt2;
  }

 private:
  std::array<double, 2 * kNodes.size()> inverse_scale_{}, weight_{};
};

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

double mixture_cdf(double q, double log_variance_sd) { return Mixture(std::max(log_variance_sd, 0.0)).cdf(q); }

namespace {

constexpr double kNormalQuantile = 1.959963984540054;
constexpr double kLargestS = 5.0;

// Newton's method inside a bracket that bisection keeps when a step would leave it. For q > 0 the
// mixture's CDF is increasing and concave: from below the steps approach the quantile without
// overshooting, and one step from above lands below it. A Newton step of size d leaves an error of
// about |F''/2F'|·d², and F''/F' is of the order of q here (−q for the normal): a step under 3e-8·q
// leaves one under 1e-14·q, so it is the last.
double solve_quantile(const Mixture& mixture, double s, double start) {
  double lo = 1.9, hi = 1.96 * std::exp(0.5 * 3.5 * s) + 2.0;  // the quantile lies below the 3.5-sd variance's
  double q = std::clamp(start, lo, hi);
  for (int i = 0; i < 100; ++i) {
    const double f = mixture.cdf(q) - 0.975;
    (f < 0 ? lo : hi) = q;
    const double slope = mixture.pdf(q);
    const double newton = slope > 0 ? q - f / slope : 0.5 * (lo + hi);
    const bool inside = newton > lo && newton < hi;
    const double next = inside ? newton : 0.5 * (lo + hi);
    if (inside && std::abs(next - q) <= 3e-8 * q) return next;
    q = next;
  }
  return q;
}

// k(s) solved once on a grid of s (0 to 5 in steps of 0.005), the start of every later search: a cubic
// through the grid is within about 1e-9 of k, so one Newton step settles it where five or six from
// the bracket's low end did (each step is 20 erfc and 20 exp; an optimize grid takes some 270).
constexpr int kGridSteps = 1000;

const std::array<double, kGridSteps + 1>& quantile_grid() {
  static const auto grid = [] {
    std::array<double, kGridSteps + 1> k{};
    k[0] = kNormalQuantile;
    for (int i = 1; i <= kGridSteps; ++i) {
      const double s = kLargestS * i / kGridSteps;
      k[i] = solve_quantile(Mixture(s), s, 1.9);
    }
    return k;
  }();
  return grid;
}

// Catmull–Rom through the four grid values around s.
double grid_start(double s) {
  const auto& k = quantile_grid();
  const double x = s / kLargestS * kGridSteps;
  const int i = std::clamp(static_cast<int>(x), 1, kGridSteps - 2);
  const double u = x - i;
  const double p0 = k[i - 1], p1 = k[i], p2 = k[i + 1], p3 = k[i + 2];
  return p1 + 0.5 * u * (p2 - p0 + u * (2 * p0 - 5 * p1 + 4 * p2 - p3 + u * (3 * (p1 - p2) + p3 - p0)));
}

}  // namespace

double mixture_quantile_factor(double log_variance_sd) {
  const double s = std::clamp(log_variance_sd, 0.0, kLargestS);
  if (s < 1e-6) return kNormalQuantile;
  return solve_quantile(Mixture(s), s, grid_start(s));
}

}  // namespace ecocompute::decide
