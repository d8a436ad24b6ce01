// Statistics: mean, SD, CV and the two-sided Student-t confidence interval (Boost.Math) — the one
// home of the t distribution. The protocol summarizes trials with it, the data layer fits, anchors
// and comparisons.
#pragma once

#include <cstddef>
#include <optional>
#include <span>

#include "util/defaults.hpp"

namespace ecocompute {

/// The two-sided 95 % quantile of the normal distribution: half-widths of bands built from SDs.
inline constexpr double kZ95 = 1.96;

/// Mean, spread and a two-sided Student-t confidence interval of n values.
struct Summary {
  std::size_t n = 0;
  double mean = 0.0;                 ///< 0 when n = 0
  std::optional<double> sd;          ///< sample SD (ddof 1); absent when n < 2
  std::optional<double> cv_pct;      ///< SD / |mean| × 100; absent when n < 2 or mean = 0
  double confidence = defaults::ci_confidence;
  std::optional<double> ci_low;      ///< mean − t(conf, n−1) · SD/√n; absent when n < 2
  std::optional<double> ci_high;
  std::optional<double> ci_half_width;
};

/// Summarizes `values` with a `confidence` (two-sided) Student-t interval. Never fails: too few
/// values leave the optional fields empty.
[[nodiscard]] Summary summarize(std::span<const double> values, double confidence = defaults::ci_confidence);

/// Returns the two-sided Student-t critical value t(1 − (1 − confidence)/2, df) from Boost.Math,
/// e.g. 4.302653 for 95 % and df = 2. Throws InvariantError for df < 1 or confidence ∉ (0, 1).
[[nodiscard]] double student_t_critical(double confidence, std::size_t df);

/// Returns the confidence of each look of a sequential rule that may stop after any of `looks`
/// looks: 1 − (1 − overall) / looks. Stopping at the first narrow enough interval would make a plain
/// `overall` interval too short (the run stops when the noise happens to be small); by the union
/// bound, the interval reported at whatever look stops the run covers with probability ≥ `overall`.
[[nodiscard]] double confidence_per_look(int looks, double overall = defaults::ci_confidence);

/// Returns (candidate − baseline) / baseline × 100: positive costs energy, negative saves.
/// Throws InvariantError when baseline is 0.
[[nodiscard]] double delta_pct(double candidate, double baseline);

}  // namespace ecocompute
