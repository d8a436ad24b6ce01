// Student t quantiles and sample moments.
#include "data/student_t.hpp"

#include <array>
#include <cmath>

namespace ecocompute::data {

double t_quantile_975(int dof) noexcept {
  static constexpr std::array<double, 30> table{12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306,
                                                2.262,  2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120,
                                                2.110,  2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
                                                2.060,  2.056, 2.052, 2.048, 2.045, 2.042};
  if (dof < 1) return NAN;
  if (dof <= 30) return table[static_cast<std::size_t>(dof - 1)];
  return 1.96 + 2.4 / dof;
}

Moments moments(std::span<const double> values) noexcept {
  Moments m;
  m.n = static_cast<int>(values.size());
  if (values.empty()) return m;
  double sum = 0;
  for (double v : values) sum += v;
  m.mean = sum / m.n;
  if (m.n >= 2) {
    double ss = 0;
    for (double v : values) ss += (v - m.mean) * (v - m.mean);
    m.sd = std::sqrt(ss / (m.n - 1));
  }
  return m;
}

}  // namespace ecocompute::data
