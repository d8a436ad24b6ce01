// Per-token statistics: Neumaier sums, two-pass variance, type-7 quantiles.
#include "quality/token_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace ecocompute::quality {

void CompensatedSum::add(double x) noexcept {
  // Neumaier: the rounding error of each addition is recovered from whichever operand is larger.
  const double t = sum_ + x;
  if (std::fabs(sum_) >= std::fabs(x)) {
    compensation_ += (sum_ - t) + x;
  } else {
    compensation_ += (x - t) + sum_;
  }
  sum_ = t;
}

Estimate mean_estimate(std::span<const double> values) {
  const std::size_t n = values.size();
  if (n == 0) return {};
  CompensatedSum total;
  for (double v : values) total.add(v);
  const double mean = total.value() / static_cast<double>(n);
  if (n < 2) return {mean, 0.0};
  // Second pass on the deviations: no cancellation between Σx² and n·mean².
  CompensatedSum squares;
  for (double v : values) squares.add((v - mean) * (v - mean));
  const double variance = squares.value() / static_cast<double>(n - 1);
  return {mean, std::sqrt(variance / static_cast<double>(n))};
}

double quantile(std::vector<double> values, double q) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const double h = static_cast<double>(values.size() - 1) * std::clamp(q, 0.0, 1.0);
  const auto lower = static_cast<std::size_t>(std::floor(h));
  if (lower + 1 >= values.size()) return values.back();
  return values[lower] + (h - static_cast<double>(lower)) * (values[lower + 1] - values[lower]);
}

}  // namespace ecocompute::quality
