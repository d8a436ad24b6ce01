// Bounded (weighted) least squares for ΔE(N) = A − S·x/(1+x), x = N/N*.
//
// For a fixed N* the model is linear in (A, S), so the box-constrained problem in (A, S) has an exact
// solution (the stationary point if it is inside the box, else the best of the four edges). The fit
// profiles N* over a log grid with that exact inner solution, then refines all three parameters with
// Levenberg–Marquardt (steps projected onto the box, parameters on a bound held there). This finds the
// global optimum where a single local start (as scipy's trust-region fit from the bounds' midpoint)
// may stop in a local one.
#include "data/curve_fit.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "util/median.hpp"
#include "util/statistics.hpp"

namespace ecocompute::data {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double shape(double params_b, double n_star_b) {  // x/(1+x)
  const double x = params_b / n_star_b;
  return x / (1.0 + x);
}

double weighted_cost(const CurveParams& p, std::span<const FitPoint> pts, std::span<const double> w) {
  double cost = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const double r = pts[i].delta_pct - evaluate_curve(p, pts[i].params_b);
    cost += w[i] * r * r;
  }
  return cost;
}

// Exact bounded weighted least squares of y = A − S·g over the box, for fixed g (i.e. fixed N*).
CurveParams solve_linear(std::span<const FitPoint> pts, std::span<const double> w, double n_star,
                         const FitBounds& b) {
  double sw = 0, sg = 0, sgg = 0, sy = 0, sgy = 0;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const double g = shape(pts[i].params_b, n_star);
    sw += w[i];
    sg += w[i] * g;
    sgg += w[i] * g * g;
    sy += w[i] * pts[i].delta_pct;
    sgy += w[i] * g * pts[i].delta_pct;
  }
  // 1-D minimisers along an edge: with S fixed, A = (Σw y + S Σw g)/Σw; with A fixed,
  // S = (A Σw g − Σw g y)/Σw g².
  auto a_given_s = [&](double s) { return std::clamp((sy + s * sg) / sw, b.a_min, b.a_max); };
  auto s_given_a = [&](double a) {
    return sgg > 0 ? std::clamp((a * sg - sgy) / sgg, b.s_min, b.s_max) : b.s_min;
  };
  std::vector<CurveParams> candidates;
  const double det = sw * sgg - sg * sg;
  if (std::abs(det) > 1e-12 * std::max(1.0, sw * sgg)) {
    // Normal equations: [Σw, −Σwg; Σwg, −Σwg²]·(A, S) = (Σwy, Σwgy).
    const double a = (sy * sgg - sg * sgy) / det;
    const double s = (sg * sy - sw * sgy) / det;
    if (a >= b.a_min && a <= b.a_max && s >= b.s_min && s <= b.s_max) return {a, s, n_star};
  }
  for (double s : {b.s_min, b.s_max}) candidates.push_back({a_given_s(s), s, n_star});
  for (double a : {b.a_min, b.a_max}) candidates.push_back({a, s_given_a(a), n_star});
  CurveParams best = candidates.front();
  double best_cost = kInf;
  for (const CurveParams& c : candidates) {
    const double cost = weighted_cost(c, pts, w);
    if (cost < best_cost) {
      best_cost = cost;
      best = c;
    }
  }
  return best;
}

// Jacobian row of f = A − S·x/(1+x): ∂f/∂A = 1, ∂f/∂S = −x/(1+x), ∂f/∂N* = S·x/(N*(1+x)²).
std::array<double, 3> gradient(const CurveParams& p, double params_b) {
  const double x = params_b / p.n_star_b;
  return {1.0, -x / (1.0 + x), p.s_pct * x / (p.n_star_b * (1.0 + x) * (1.0 + x))};
}

// Solves the k×k system M·δ = v (k ≤ 3) by Gaussian elimination with pivoting; false if singular.
bool solve(std::vector<std::vector<double>> m, std::vector<double> v, std::vector<double>& out) {
  const std::size_t k = v.size();
  for (std::size_t c = 0; c < k; ++c) {
    std::size_t pivot = c;
    for (std::size_t r = c + 1; r < k; ++r) {
      if (std::abs(m[r][c]) > std::abs(m[pivot][c])) pivot = r;
    }
    if (std::abs(m[pivot][c]) < 1e-300) return false;
    std::swap(m[c], m[pivot]);
    std::swap(v[c], v[pivot]);
    for (std::size_t r = c + 1; r < k; ++r) {
      const double f = m[r][c] / m[c][c];
      for (std::size_t q = c; q < k; ++q) m[r][q] -= f * m[c][q];
      v[r] -= f * v[c];
    }
  }
  out.assign(k, 0.0);
  for (std::size_t c = k; c-- > 0;) {
    double s = v[c];
    for (std::size_t q = c + 1; q < k; ++q) s -= m[c][q] * out[q];
    out[c] = s / m[c][c];
  }
  return true;
}

// Inverts a small symmetric positive definite matrix; false if singular.
bool invert(const std::vector<std::vector<double>>& m, std::vector<std::vector<double>>& inv) {
  const std::size_t k = m.size();
  inv.assign(k, std::vector<double>(k, 0.0));
  for (std::size_t c = 0; c < k; ++c) {
    std::vector<double> e(k, 0.0), col;
    e[c] = 1.0;
    if (!solve(m, e, col)) return false;
    for (std::size_t r = 0; r < k; ++r) inv[r][c] = col[r];
  }
  return true;
}

double& component(CurveParams& p, int i) { return i == 0 ? p.a_pct : i == 1 ? p.s_pct : p.n_star_b; }
double lower(const FitBounds& b, int i) { return i == 0 ? b.a_min : i == 1 ? b.s_min : b.n_star_min; }
double upper(const FitBounds& b, int i) { return i == 0 ? b.a_max : i == 1 ? b.s_max : b.n_star_max; }

// Levenberg–Marquardt refinement from `start` over the free parameters (N* held when fixed).
CurveParams refine(CurveParams p, std::span<const FitPoint> pts, std::span<const double> w, const FitBounds& b,
                   bool n_star_fixed) {
  const int k = n_star_fixed ? 2 : 3;
  double lambda = 1e-3;
  double cost = weighted_cost(p, pts, w);
  for (int iteration = 0; iteration < 200; ++iteration) {
    std::vector<std::vector<double>> jtj(3, std::vector<double>(3, 0.0));
    std::vector<double> jtr(3, 0.0);
    for (std::size_t i = 0; i < pts.size(); ++i) {
      const auto g = gradient(p, pts[i].params_b);
      const double r = pts[i].delta_pct - evaluate_curve(p, pts[i].params_b);
      for (int a = 0; a < k; ++a) {
        jtr[a] += w[i] * g[a] * r;
        for (int c = 0; c < k; ++c) jtj[a][c] += w[i] * g[a] * g[c];
      }
    }
    // Hold parameters that sit on a bound and whose descent direction points outside it.
    std::vector<int> free;
    for (int a = 0; a < k; ++a) {
      const double v = component(p, a);
      const bool at_low = v <= lower(b, a) + 1e-12 * std::max(1.0, std::abs(lower(b, a)));
      const bool at_high = v >= upper(b, a) - 1e-12 * std::max(1.0, std::abs(upper(b, a)));
      if ((at_low && jtr[a] < 0) || (at_high && jtr[a] > 0)) continue;
      free.push_back(a);
    }
    if (free.empty()) break;
    bool improved = false;
    for (int attempt = 0; attempt < 30 && !improved; ++attempt) {
      std::vector<std::vector<double>> m(free.size(), std::vector<double>(free.size()));
      std::vector<double> v(free.size());
      for (std::size_t a = 0; a < free.size(); ++a) {
        v[a] = jtr[free[a]];
        for (std::size_t c = 0; c < free.size(); ++c) m[a][c] = jtj[free[a]][free[c]];
        m[a][a] += lambda * std::max(jtj[free[a]][free[a]], 1e-12);
      }
      std::vector<double> step;
      if (!solve(m, v, step)) {
        lambda *= 10;
        continue;
      }
      CurveParams trial = p;
      for (std::size_t a = 0; a < free.size(); ++a) {
        double& c = component(trial, free[a]);
        c = std::clamp(c + step[a], lower(b, free[a]), upper(b, free[a]));
      }
      const double trial_cost = weighted_cost(trial, pts, w);
      if (trial_cost < cost) {
        const double gain = cost - trial_cost;
        p = trial;
        cost = trial_cost;
        lambda = std::max(lambda / 10, 1e-12);
        improved = true;
        if (gain <= 1e-14 * std::max(1.0, cost)) return p;
      } else {
        lambda *= 10;
      }
    }
    if (!improved) break;
  }
  return p;
}

double median_size(std::span<const FitPoint> pts) {
  std::vector<double> sizes;
  for (const FitPoint& p : pts) sizes.push_back(p.params_b);
  return median(std::move(sizes)).value_or(0.0);
}

struct Solution {
  CurveParams params;
  bool n_star_fixed = false;
};

// The global optimum for given weights: profile N* on a log grid (exact inner solve), refine the best.
Solution optimise(std::span<const FitPoint> pts, std::span<const double> w, const FitBounds& b,
                  bool fix_n_star_below_three) {
  Solution out;
  if (fix_n_star_below_three && pts.size() < 3) {
    out.n_star_fixed = true;
    out.params = solve_linear(pts, w, median_size(pts), b);
    return out;
  }
  constexpr int kGrid = 400;
  std::vector<CurveParams> starts;
  const double lo = std::log(b.n_star_min), hi = std::log(b.n_star_max);
  for (int i = 0; i <= kGrid; ++i) {
    const double n_star = std::exp(lo + (hi - lo) * i / kGrid);
    starts.push_back(solve_linear(pts, w, n_star, b));
  }
  std::sort(starts.begin(), starts.end(), [&](const CurveParams& x, const CurveParams& y) {
    return weighted_cost(x, pts, w) < weighted_cost(y, pts, w);
  });
  double best_cost = kInf;
  for (std::size_t i = 0; i < std::min<std::size_t>(5, starts.size()); ++i) {  // the best few grid cells
    CurveParams p = refine(starts[i], pts, w, b, false);
    const double cost = weighted_cost(p, pts, w);
    if (cost < best_cost) {
      best_cost = cost;
      out.params = p;
    }
  }
  return out;
}

Result<void> check_points(std::span<const FitPoint> points) {
  if (points.empty()) return unexpected(ErrorCode::invalid_argument, "no points to fit");
  for (const FitPoint& p : points) {
    if (!std::isfinite(p.params_b) || p.params_b <= 0) {
      return unexpected(ErrorCode::invalid_argument, "fit point '" + p.model + "': size must be finite and > 0");
    }
    if (!std::isfinite(p.delta_pct)) {
      return unexpected(ErrorCode::invalid_argument, "fit point '" + p.model + "': ΔE is NaN or infinite");
    }
    if (p.n < 1) return unexpected(ErrorCode::invalid_argument, "fit point '" + p.model + "': n must be ≥ 1");
    if (p.se_pct && (!std::isfinite(*p.se_pct) || *p.se_pct < 0)) {
      return unexpected(ErrorCode::invalid_argument, "fit point '" + p.model + "': se must be finite and ≥ 0");
    }
  }
  return {};
}

}  // namespace

double evaluate_curve(const CurveParams& p, double params_b) noexcept {
  return p.a_pct - p.s_pct * shape(params_b, p.n_star_b);
}

FitBounds published_bounds(std::span<const FitPoint> points, double s_cap) noexcept {
  double max_delta = -kInf;
  for (const FitPoint& p : points) max_delta = std::max(max_delta, p.delta_pct);
  if (points.empty()) max_delta = 0;
  return FitBounds{-50.0, max_delta + 50.0, 0.0, s_cap + std::max(0.0, max_delta), 0.1, 200.0};
}

double published_s_cap(std::string_view precision) noexcept {
  for (std::string_view four_bit : {"NF4", "FP4", "Q4_0", "Q4_1", "Q4_K_M", "Q4_K_S", "IQ4_XS"}) {
    if (precision == four_bit) return 75.0;
  }
  return 50.0;
}

std::string_view to_string(FitWeighting weighting) noexcept {
  return weighting == FitWeighting::unweighted ? "unweighted" : "weighted";
}

double rms_residual(const CurveParams& params, std::span<const FitPoint> points) noexcept {
  if (points.empty()) return 0;
  double ss = 0;
  for (const FitPoint& p : points) {
    const double r = p.delta_pct - evaluate_curve(params, p.params_b);
    ss += r * r;
  }
  return std::sqrt(ss / static_cast<double>(points.size()));
}

Result<CurveFit> fit_curve(std::span<const FitPoint> points, const FitOptions& options) {
  if (auto ok = check_points(points); !ok) return ok.error();
  CurveFit fit;
  fit.weighting = options.weighting;
  fit.bounds = options.bounds.value_or(published_bounds(points, options.s_cap));
  fit.points.assign(points.begin(), points.end());
  std::vector<double> sizes;
  for (const FitPoint& p : points) sizes.push_back(p.params_b);
  std::sort(sizes.begin(), sizes.end());
  fit.range_min_b = sizes.front();
  fit.range_max_b = sizes.back();
  fit.distinct_sizes = static_cast<int>(std::unique(sizes.begin(), sizes.end()) - sizes.begin());
  if (fit.distinct_sizes < 2) {
    return unexpected(ErrorCode::invalid_argument,
                      "a curve needs points at 2 or more model sizes, got only " + std::to_string(sizes.front()) + " B");
  }

  std::vector<double> w(points.size(), 1.0);
  Solution solution = optimise(points, w, fit.bounds, options.fix_n_star_below_three);
  if (options.weighting == FitWeighting::weighted) {
    // Feasible weighted least squares: σ_r from the unweighted fit is the scatter of a single-trial
    // point about the curve; a point of n trials with its own standard error se gets
    // w = 1/(σ_r²/n + se²).
    const double sigma_r2 = std::max(std::pow(rms_residual(solution.params, points), 2), 1e-6);
    for (std::size_t i = 0; i < points.size(); ++i) {
      const double se = points[i].se_pct.value_or(0.0);
      w[i] = 1.0 / (sigma_r2 / points[i].n + se * se);
    }
    fit.new_point_weight = 1.0 / sigma_r2;
    solution = optimise(points, w, fit.bounds, options.fix_n_star_below_three);
  }
  fit.params = solution.params;
  fit.n_star_fixed = solution.n_star_fixed;
  fit.resid_std_pct = rms_residual(fit.params, points);

  // Parameters on a bound are held: they carry no variance of their own.
  std::vector<int> free;
  const int k = fit.n_star_fixed ? 2 : 3;
  const char* names[] = {"A", "S", "N*"};
  for (int a = 0; a < k; ++a) {
    const double v = component(fit.params, a);
    const double tol = 1e-6 * std::max(1.0, std::abs(v));
    if (std::abs(v - lower(fit.bounds, a)) <= tol || std::abs(v - upper(fit.bounds, a)) <= tol) {
      fit.at_bound.emplace_back(names[a]);
    } else {
      free.push_back(a);
    }
  }
  // With S = 0 the curve is flat and N* has no effect: it is not a parameter of the fit.
  if (fit.params.s_pct == 0.0 && !free.empty() && free.back() == 2) free.pop_back();
  fit.dof = static_cast<int>(points.size()) - static_cast<int>(free.size());
  const double cost = weighted_cost(fit.params, points, w);
  fit.sigma_pct = fit.dof > 0 ? std::sqrt(cost / fit.dof) : 0.0;
  if (fit.dof > 0 && !free.empty()) {
    // Cov = σ² (JᵀWJ)⁻¹ over the free parameters (scipy's curve_fit with absolute_sigma=False).
    std::vector<std::vector<double>> jtj(free.size(), std::vector<double>(free.size(), 0.0)), inv;
    for (std::size_t i = 0; i < points.size(); ++i) {
      const auto g = gradient(fit.params, points[i].params_b);
      for (std::size_t a = 0; a < free.size(); ++a) {
        for (std::size_t c = 0; c < free.size(); ++c) jtj[a][c] += w[i] * g[free[a]] * g[free[c]];
      }
    }
    if (invert(jtj, inv)) {
      std::array<std::array<double, 3>, 3> cov{};
      for (std::size_t a = 0; a < free.size(); ++a) {
        for (std::size_t c = 0; c < free.size(); ++c) cov[free[a]][free[c]] = fit.sigma_pct * fit.sigma_pct * inv[a][c];
      }
      fit.covariance = cov;
    }
  }

  if (options.compute_loo && points.size() >= 4) {
    double total = 0;
    bool ok = true;
    for (std::size_t i = 0; i < points.size() && ok; ++i) {
      std::vector<FitPoint> rest;
      for (std::size_t j = 0; j < points.size(); ++j) {
        if (j != i) rest.push_back(points[j]);
      }
      FitOptions inner = options;
      inner.compute_loo = false;
      auto sub = fit_curve(rest, inner);
      if (!sub) {
        ok = false;
        break;
      }
      total += std::abs(points[i].delta_pct - evaluate_curve(sub->params, points[i].params_b));
    }
    if (ok) fit.loo_mae_pct = total / static_cast<double>(points.size());
  }

  const double a = fit.params.a_pct, s = fit.params.s_pct;
  if (s > a && a > 0) {
    const double crossover = fit.params.n_star_b * a / (s - a);
    if (crossover >= fit.range_min_b && crossover <= fit.range_max_b) fit.crossover_b = crossover;
  }
  if (fit.crossover_b && fit.covariance) {
    // The interval of sizes around the crossover where the 95 % confidence band contains 0.
    auto contains_zero = [&](double n) {
      const CurveValue v = fit.at(n);
      return v.ci_low_pct && v.ci_high_pct && *v.ci_low_pct <= 0 && *v.ci_high_pct >= 0;
    };
    constexpr int kSteps = 2000;
    const double lo = std::log(fit.range_min_b), hi = std::log(fit.range_max_b);
    auto size_at = [&](int i) { return std::exp(lo + (hi - lo) * i / kSteps); };
    int centre = static_cast<int>(std::round((std::log(*fit.crossover_b) - lo) / (hi - lo) * kSteps));
    int left = centre, right = centre;
    while (left > 0 && contains_zero(size_at(left - 1))) --left;
    while (right < kSteps && contains_zero(size_at(right + 1))) ++right;
    if (left > 0) fit.crossover_ci_low_b = size_at(left);
    if (right < kSteps) fit.crossover_ci_high_b = size_at(right);
  }
  return fit;
}

CurveValue CurveFit::at(double params_b) const {
  CurveValue v;
  v.params_b = params_b;
  v.delta_pct = evaluate_curve(params, params_b);
  if (!covariance || dof <= 0) return v;
  const auto g = gradient(params, params_b);
  double var = 0;
  for (int a = 0; a < 3; ++a) {
    for (int c = 0; c < 3; ++c) var += g[a] * (*covariance)[a][c] * g[c];
  }
  const double t = student_t_critical(0.95, static_cast<std::size_t>(dof));
  const double half_ci = t * std::sqrt(std::max(var, 0.0));
  const double half_pi = t * std::sqrt(std::max(var, 0.0) + sigma_pct * sigma_pct / new_point_weight);
  v.ci_low_pct = v.delta_pct - half_ci;
  v.ci_high_pct = v.delta_pct + half_ci;
  v.pi_low_pct = v.delta_pct - half_pi;
  v.pi_high_pct = v.delta_pct + half_pi;
  return v;
}

bool CurveFit::covers(double params_b) const noexcept {
  return params_b >= range_min_b * (1 - 1e-9) && params_b <= range_max_b * (1 + 1e-9);
}

void to_json(Json& j, const CurveValue& v) {
  j = Json{{"params_b", v.params_b},           {"delta_pct", v.delta_pct},
           {"ci_low_pct", json_or_null(v.ci_low_pct)}, {"ci_high_pct", json_or_null(v.ci_high_pct)},
           {"pi_low_pct", json_or_null(v.pi_low_pct)}, {"pi_high_pct", json_or_null(v.pi_high_pct)}};
}

void to_json(Json& j, const CurveFit& f) {
  j = Json{{"A", f.params.a_pct},
           {"S", f.params.s_pct},
           {"n_star_b", f.params.n_star_b},
           {"resid_std", f.resid_std_pct},
           {"range_min_b", f.range_min_b},
           {"range_max_b", f.range_max_b},
           {"crossover_b", json_or_null(f.crossover_b)},
           {"loo_mae", json_or_null(f.loo_mae_pct)},
           {"crossover_ci_b", Json::array({json_or_null(f.crossover_ci_low_b), json_or_null(f.crossover_ci_high_b)})},
           {"weighting", to_string(f.weighting)},
           {"n_points", f.points.size()},
           {"distinct_sizes", f.distinct_sizes},
           {"n_star_fixed", f.n_star_fixed},
           {"at_bound", f.at_bound},
           {"sigma_pct", f.sigma_pct},
           {"dof", f.dof}};
  j["covariance"] = json_or_null(f.covariance);
  Json points = Json::array();
  for (const FitPoint& p : f.points) {
    points.push_back(Json{{"params_b", p.params_b}, {"delta_pct", p.delta_pct}, {"n", p.n},
                          {"se_pct", json_or_null(p.se_pct)}, {"session_id", p.session_id}, {"model", p.model}});
  }
  j["points"] = std::move(points);
}

}  // namespace ecocompute::data
