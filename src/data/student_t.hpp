// Small statistics helpers shared by the fits, summaries and comparisons.
#pragma once

#include <optional>
#include <span>

namespace ecocompute::data {

/// Returns the two-sided 95 % quantile of Student's t with `dof` degrees of freedom (dof ≥ 1):
/// tabulated to dof 30, then 1.96 + 2.4/dof (within 0.002 of the exact value).
double t_quantile_975(int dof) noexcept;

/// Mean and sample SD (ddof 1; absent for one value) of a set of values.
struct Moments {
  double mean = 0;
  std::optional<double> sd;
  int n = 0;
};
Moments moments(std::span<const double> values) noexcept;

}  // namespace ecocompute::data
