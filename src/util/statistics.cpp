// Two-pass mean and SD, Student-t intervals from Boost.Math.
#include "util/statistics.hpp"

#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>

#include "util/check.hpp"

namespace ecocompute {

Summary summarize(std::span<const double> values, double confidence) {
  Summary s;
  s.n = values.size();
  s.confidence = confidence;
  if (s.n == 0) return s;
  double sum = 0.0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(s.n);
  if (s.n < 2) return s;
  // Two passes: the sum of squared deviations from the mean does not cancel catastrophically the
  // way Σx² − n·mean² does for values with a large common offset (joules of long windows).
  double squares = 0.0;
  for (double v : values) squares += (v - s.mean) * (v - s.mean);
  const double sd = std::sqrt(squares / static_cast<double>(s.n - 1));  // ddof 1
  s.sd = sd;
  if (s.mean != 0.0) s.cv_pct = sd / std::abs(s.mean) * 100.0;
  // CI = mean ± t(1 − α/2, n − 1) · SD / √n
  const double half = student_t_critical(confidence, s.n - 1) * sd / std::sqrt(static_cast<double>(s.n));
  s.ci_half_width = half;
  s.ci_low = s.mean - half;
  s.ci_high = s.mean + half;
  return s;
}

double confidence_per_look(int looks, double overall) {
  return 1.0 - (1.0 - overall) / std::max(1, looks);
}

double student_t_critical(double confidence, std::size_t df) {
  ECO_CHECK(df >= 1, "Student-t needs at least one degree of freedom");
  ECO_CHECK(confidence > 0.0 && confidence < 1.0, "confidence must lie in (0, 1)");
  const boost::math::students_t distribution(static_cast<double>(df));
  return boost::math::quantile(distribution, 1.0 - (1.0 - confidence) / 2.0);
}

double delta_pct(double candidate, double baseline) {
  ECO_CHECK(baseline != 0.0, "ΔE % against a zero baseline");
  return (candidate - baseline) / baseline * 100.0;
}

}  // namespace ecocompute
