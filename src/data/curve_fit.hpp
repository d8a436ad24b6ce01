// Crossover curve fit: ΔE(N) = A − S·x/(1+x), x = N/N*, by bounded (weighted) nonlinear least squares
// (Levenberg–Marquardt with projection onto the bounds, several starts), with the parameter covariance,
// 95 % confidence and prediction bands, leave-one-out MAE and the crossover size with its interval.
#pragma once

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::data {

/// One point to fit: ΔE % at a model size, with how many trials stand behind it.
struct FitPoint {
  double params_b = 0.0;
  double delta_pct = 0.0;
  int n = 1;                     ///< trials (replicates) averaged into delta_pct
  std::optional<double> se_pct;  ///< the point's own standard error of ΔE, if it has one
  std::string session_id;
  std::string model;
};

/// The curve's parameters: A and S in percentage points, N* in billions of parameters.
struct CurveParams {
  double a_pct = 0.0;
  double s_pct = 0.0;
  double n_star_b = 1.0;
};

/// Returns ΔE(N) in % for a model of `params_b` billion parameters.
double evaluate_curve(const CurveParams& params, double params_b) noexcept;

/// Box bounds on (A, S, N*).
struct FitBounds {
  double a_min = -50, a_max = 50;
  double s_min = 0, s_max = 75;
  double n_star_min = 0.1, n_star_max = 200;
};

/// Returns the published bounds: A ∈ [−50, max ΔE + 50], S ∈ [0, s_cap + max(0, max ΔE)],
/// N* ∈ [0.1, 200].
FitBounds published_bounds(std::span<const FitPoint> points, double s_cap) noexcept;

/// Returns the published s_cap for a precision class: 75 for 4-bit, 50 for 8-bit (and others).
double published_s_cap(std::string_view precision) noexcept;

enum class FitWeighting {
  unweighted,  ///< the published method: every point counts once
  weighted,    ///< w = 1 / (σ_r²/n + se²): σ_r from the unweighted fit, n and se from the point
};
std::string_view to_string(FitWeighting weighting) noexcept;

struct FitOptions {
  FitWeighting weighting = FitWeighting::weighted;
  std::optional<FitBounds> bounds;  ///< default: published_bounds(points, s_cap)
  double s_cap = 75.0;
  /// With fewer than 3 distinct sizes, N* is fixed to the median size (the published rule).
  bool fix_n_star_below_three = true;
  /// Computes the leave-one-out MAE (one refit per point).
  bool compute_loo = true;
};

/// A value on the curve with its 95 % confidence band (of the mean curve) and prediction band
/// (of a new measurement). Bands are absent when the fit has no residual degrees of freedom.
struct CurveValue {
  double params_b = 0.0;
  double delta_pct = 0.0;
  std::optional<double> ci_low_pct, ci_high_pct;
  std::optional<double> pi_low_pct, pi_high_pct;
};

/// A fitted curve.
struct CurveFit {
  CurveParams params;
  FitWeighting weighting = FitWeighting::weighted;
  FitBounds bounds;
  std::vector<FitPoint> points;
  int distinct_sizes = 0;
  bool n_star_fixed = false;
  std::vector<std::string> at_bound;  ///< parameters that ended on a bound ("A", "S", "N*")
  double resid_std_pct = 0.0;         ///< RMS residual, ddof 0 (the published resid_std)
  double sigma_pct = 0.0;             ///< √(Σw·r² / dof): the residual scale behind the covariance
  int dof = 0;                        ///< points − free parameters
  std::optional<std::array<std::array<double, 3>, 3>> covariance;  ///< (A, S, N*), if dof > 0
  double new_point_weight = 1.0;      ///< the weight a new single-trial point gets (prediction band)
  std::optional<double> loo_mae_pct;  ///< leave-one-out mean absolute error (needs ≥ 4 points)
  double range_min_b = 0.0, range_max_b = 0.0;
  /// N*·A/(S−A) when S > A > 0 and it lies within the measured range; otherwise absent.
  std::optional<double> crossover_b;
  /// Sizes within the measured range where the 95 % confidence band contains 0; a side that is not
  /// bounded inside the range is absent (the data do not support it).
  std::optional<double> crossover_ci_low_b, crossover_ci_high_b;

  /// Returns the curve's value at `params_b` with its bands.
  [[nodiscard]] CurveValue at(double params_b) const;
  /// Returns true when `params_b` lies within the measured size range.
  [[nodiscard]] bool covers(double params_b) const noexcept;
};

/// Fits the curve. Errors: no points, a NaN/inf or non-positive size, weights that are not finite.
Result<CurveFit> fit_curve(std::span<const FitPoint> points, const FitOptions& options = {});

/// Returns the RMS residual (ddof 0) of given parameters on the points (to compare optima).
double rms_residual(const CurveParams& params, std::span<const FitPoint> points) noexcept;

/// Converts to JSON: A, S, n_star_b, resid_std, range_min_b, range_max_b, crossover_b, loo_mae (the
/// published curve field names) plus covariance, sigma_pct, dof, weighting, points, crossover_ci_b.
void to_json(Json& j, const CurveFit& fit);
void to_json(Json& j, const CurveValue& value);

}  // namespace ecocompute::data
