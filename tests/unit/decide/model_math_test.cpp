// Tests of the decision model's numerics: Cholesky solves, the simplex search, the Laplace covariance
// of a likelihood and the quantile of the normal variance mixture.
#include <gtest/gtest.h>

#include <cmath>

#include "decide/dense_matrix.hpp"
#include "decide/bounded_search.hpp"
#include "decide/variance_uncertainty.hpp"

namespace ecocompute::decide {
namespace {

TEST(DenseMatrix, CholeskySolvesAndGivesTheDeterminant) {
  Matrix m(3, 3);
  const double values[] = {4, 2, 0.4, 2, 5, 1, 0.4, 1, 3};
  for (int i = 0; i < 9; ++i) m.a[static_cast<std::size_t>(i)] = values[i];
  const auto chol = cholesky(m);
  ASSERT_TRUE(chol);
  const std::vector<double> x = cholesky_solve(*chol, std::vector<double>{1, 2, 3});
  const std::vector<double> back = times(m, x);
  for (int i = 0; i < 3; ++i) { EXPECT_NEAR(back[static_cast<std::size_t>(i)], i + 1.0, 1e-12); }
  // det = 4(15 − 1) − 2(6 − 0.4) + 0.4(2 − 2) = 56 − 11.2 = 44.8
  EXPECT_NEAR(log_det(*chol), std::log(44.8), 1e-12);
  const Matrix inverse = cholesky_inverse(*chol);
  EXPECT_NEAR(quadratic_form(inverse, {1, 2, 3}), dot({1, 2, 3}, x), 1e-12);
  Matrix indefinite(2, 2);
  indefinite.a = {1, 2, 2, 1};
  EXPECT_FALSE(cholesky(indefinite));
}

TEST(BoundedSearch, FindsTheMinimumOfAValleyAndKeepsTheBounds) {
  auto valley = [](const std::vector<double>& x) { return (x[0] - 1) * (x[0] - 1) + 10 * (x[1] + 2) * (x[1] + 2) + 3; };
  const Box wide{{-10, -10}, {10, 10}};
  const SearchResult r = bobyqa(valley, {5, 5}, wide, 1.0, 1e-12, 2000);
  EXPECT_NEAR(r.x[0], 1, 1e-4);
  EXPECT_NEAR(r.x[1], -2, 1e-4);
  EXPECT_NEAR(r.value, 3, 1e-8);
  // The minimum outside the box: the search stops on its edge, and a start outside is moved in.
  const Box narrow{{-10, 0}, {10, 10}};
  const SearchResult edge = bobyqa(valley, {5, -5}, narrow, 1.0, 1e-12, 2000);
  EXPECT_NEAR(edge.x[0], 1, 1e-4);
  EXPECT_DOUBLE_EQ(edge.x[1], 0);
  EXPECT_NEAR(edge.value, 3 + 40, 1e-8);
}

TEST(BoundedSearch, ManyStartsFindTheDeeperOfTwoMinimaThatOneStartMisses) {
  // Two wells: a shallow one at x = −2 (value 0) and a deep one at x = +3 (value −5).
  auto wells = [](const std::vector<double>& x) {
    const double a = x[0] + 2, b = x[0] - 3;
    return std::min(a * a, b * b - 5) + x[1] * x[1];
  };
  const Box box{{-5, -5}, {5, 5}};
  const SearchResult one = bobyqa(wells, {-2.5, 1}, box, 0.2, 1e-10, 2000);
  EXPECT_NEAR(one.value, 0, 1e-6);  // the shallow well: what a single search from there returns
  std::vector<std::vector<double>> starts{{-2.5, 1}};
  for (auto& p : halton_points({-5, -5}, {5, 5}, 8)) starts.push_back(p);
  const MultiStart how{.step = 0.2, .screen_tolerance = 0.1, .screen_evaluations = 40, .refine = 9, .tolerance = 1e-10,
                       .max_evaluations = 2000, .agree = 1e-3};
  const SearchResult best = best_of_starts(wells, starts, box, how);
  EXPECT_NEAR(best.value, -5, 1e-6);
  EXPECT_NEAR(best.x[0], 3, 1e-3);
  EXPECT_EQ(best.starts, 9);
  EXPECT_EQ(best.refined, 9);
  EXPECT_GE(best.refined_at_best, 1);
  EXPECT_LT(best.refined_at_best, 9);  // the first start ended in the other well
  // Refining only the best screened end still finds the deep well: screening ranks it first.
  MultiStart one_refined = how;
  one_refined.refine = 1;
  const SearchResult screened = best_of_starts(wells, starts, box, one_refined);
  EXPECT_NEAR(screened.value, -5, 1e-6);
  EXPECT_EQ(screened.refined, 1);
  // Halton points: deterministic, inside the box, the first of base 2 and 3 at ½ and ⅓.
  const auto points = halton_points({0, 0}, {1, 3}, 3);
  ASSERT_EQ(points.size(), 3u);
  EXPECT_DOUBLE_EQ(points[0][0], 0.5);
  EXPECT_DOUBLE_EQ(points[0][1], 1.0);
  EXPECT_DOUBLE_EQ(points[1][0], 0.25);
  EXPECT_DOUBLE_EQ(points[2][1], 1.0 / 9 * 3);
}

TEST(VarianceUncertainty, TheInformationOfAQuadraticLikelihoodIsItsVariance) {
  // −2 log L = (θ − 1)² / v has Hessian 2/v, so Σ = 2 H⁻¹ = v.
  std::size_t flattest = 99;
  const auto cov = parameter_covariance([](const std::vector<double>& x) { return (x[0] - 1) * (x[0] - 1) / 0.25; }, {1.0}, 0.1, &flattest);
  ASSERT_TRUE(cov);
  EXPECT_NEAR((*cov)(0, 0), 0.25, 1e-9);
  EXPECT_FALSE(parameter_covariance([](const std::vector<double>& x) { return -x[0] * x[0]; }, {0.0}, 0.1, &flattest));
  EXPECT_EQ(flattest, 0u);
}

TEST(VarianceUncertainty, AnUncertainVarianceWidensTheInterval) {
  EXPECT_NEAR(mixture_quantile_factor(0), 1.95996, 1e-4);
  double previous = mixture_quantile_factor(0);
  for (double s : {0.1, 0.3, 0.6, 1.0, 2.0}) {
    const double k = mixture_quantile_factor(s);
    EXPECT_GT(k, previous) << s;
    previous = k;
  }
  // ln V ~ N(0, 1): wider than the normal, far narrower than Student's t with one degree of freedom.
  EXPECT_GT(mixture_quantile_factor(1.0), 2.3);
  EXPECT_LT(mixture_quantile_factor(1.0), 4.0);
}

TEST(VarianceUncertainty, TheQuantileSolvesTheMixtureToRounding) {
  // A plain normal first: its 97.5 % point.
  EXPECT_NEAR(mixture_cdf(1.959963984540054, 0.0), 0.975, 1e-15);
  for (double s : {1e-5, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.5, 5.0}) {
    const double k = mixture_quantile_factor(s);
    EXPECT_NEAR(mixture_cdf(k, s), 0.975, 1e-13) << s;
    // and it is that quantile to a relative 1e-9, not merely a point where the CDF is flat
    EXPECT_LT(mixture_cdf(k * (1 - 1e-9), s), 0.975) << s;
    EXPECT_GT(mixture_cdf(k * (1 + 1e-9), s), 0.975) << s;
  }
}

// The search starts from a cubic through a grid of s and stops after a short Newton step: at every s,
// on the grid, between its points and in its first and last intervals, the factor is the quantile that
// halving the bracket down to adjacent doubles finds, within 1e-13 relative.
TEST(VarianceUncertainty, TheQuantileFromTheGridStartIsTheBisectedOne) {
  for (int i = 0; i <= 1013; ++i) {
    const double s = 5.0 * i / 1013.0 + (i == 0 ? 1e-6 : 0.0);
    double lo = 1.9, hi = 1.96 * std::exp(0.5 * 3.5 * s) + 2.0;
    while (std::nextafter(lo, hi) < hi) {
      const double mid = 0.5 * (lo + hi);
      if (mid <= lo || mid >= hi) break;
      (mixture_cdf(mid, s) < 0.975 ? lo : hi) = mid;
    }
    EXPECT_NEAR(mixture_quantile_factor(s), lo, 1e-13 * lo) << s;
  }
}

}  // namespace
}  // namespace ecocompute::decide
