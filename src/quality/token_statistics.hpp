// Statistics over per-token series: compensated sums, mean with standard error, quantiles.
#pragma once

#include <span>
#include <vector>

#include "quality/quality_result.hpp"

namespace ecocompute::quality {

/// A running sum with Neumaier's compensation, so that summing 10^5–10^6 per-token values loses
/// no more than a few ulps of the total, whatever their order and sign.
class CompensatedSum {
 public:
  /// Adds `x` to the sum.
  void add(double x) noexcept;
  /// Returns the compensated total.
  [[nodiscard]] double value() const noexcept { return sum_ + compensation_; }

 private:
  double sum_ = 0.0;
  double compensation_ = 0.0;
};

/// Returns the mean of `values` and its standard error SD / √n, with SD the sample standard deviation
/// (ddof 1) computed in two passes. Treats the values as independent (per-token values within a window
/// are correlated, so the error is a lower bound). The standard error is 0 when n < 2; both are 0 when n = 0.
[[nodiscard]] Estimate mean_estimate(std::span<const double> values);

/// Returns the q-quantile (0 ≤ q ≤ 1) of `values` by linear interpolation between order statistics
/// (Hyndman–Fan type 7, numpy's default): h = (n − 1)·q, x[⌊h⌋] + (h − ⌊h⌋)(x[⌊h⌋+1] − x[⌊h⌋]).
/// Returns 0 for an empty series.
[[nodiscard]] double quantile(std::vector<double> values, double q);

}  // namespace ecocompute::quality
