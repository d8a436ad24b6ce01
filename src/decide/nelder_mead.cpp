// Nelder–Mead (see nelder_mead.hpp).
#include "decide/nelder_mead.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace ecocompute::decide {
namespace {

using Point = std::vector<double>;

Point along(const Point& from, const Point& to, double t) {
  Point out(from.size());
  for (std::size_t i = 0; i < from.size(); ++i) out[i] = from[i] + t * (to[i] - from[i]);
  return out;
}

struct Simplex {
  std::vector<Point> points;
  std::vector<double> values;
};

// One pass: reflect the worst point through the centroid of the others, expand, contract or shrink.
void step_once(Simplex& s, const std::function<double(const Point&)>& f, int& evaluations) {
  const std::size_t n = s.points.size() - 1;
  std::vector<std::size_t> order(n + 1);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return s.values[a] < s.values[b]; });
  const std::size_t best = order.front(), worst = order.back(), second = order[n - 1];
  Point centroid(s.points[0].size(), 0.0);
  for (std::size_t i : order) {
    if (i == worst) continue;
    for (std::size_t k = 0; k < centroid.size(); ++k) centroid[k] += s.points[i][k] / static_cast<double>(n);
  }
  auto eval = [&](const Point& p) { ++evaluations; return f(p); };
  const Point reflected = along(centroid, s.points[worst], -1.0);
  const double fr = eval(reflected);
  if (fr < s.values[best]) {
    const Point expanded = along(centroid, s.points[worst], -2.0);
    const double fe = eval(expanded);
    s.points[worst] = fe < fr ? expanded : reflected;
    s.values[worst] = std::min(fe, fr);
  } else if (fr < s.values[second]) {
    s.points[worst] = reflected;
    s.values[worst] = fr;
  } else {
    const bool outside = fr < s.values[worst];
    const Point contracted = along(centroid, outside ? reflected : s.points[worst], 0.5);
    const double fc = eval(contracted);
    if (fc < std::min(fr, s.values[worst])) {
      s.points[worst] = contracted;
      s.values[worst] = fc;
      return;
    }
    for (std::size_t i : order) {
      if (i == best) continue;
      s.points[i] = along(s.points[best], s.points[i], 0.5);
      s.values[i] = eval(s.points[i]);
    }
  }
}

SimplexResult run(const std::function<double(const Point&)>& f, const Point& start, const Point& step, double tolerance,
                  int max_evaluations) {
  Simplex s;
  s.points.push_back(start);
  for (std::size_t i = 0; i < start.size(); ++i) {
    Point p = start;
    p[i] += step[i];
    s.points.push_back(p);
  }
  int evaluations = 0;
  for (const Point& p : s.points) {
    s.values.push_back(f(p));
    ++evaluations;
  }
  while (evaluations < max_evaluations) {
    const auto [lo, hi] = std::minmax_element(s.values.begin(), s.values.end());
    if (*hi - *lo < tolerance) break;
    step_once(s, f, evaluations);
  }
  const auto best = std::min_element(s.values.begin(), s.values.end()) - s.values.begin();
  return SimplexResult{s.points[static_cast<std::size_t>(best)], s.values[static_cast<std::size_t>(best)], evaluations};
}

}  // namespace

SimplexResult nelder_mead(const std::function<double(const std::vector<double>&)>& f, std::vector<double> start,
                          const std::vector<double>& step, double tolerance, int max_evaluations) {
  if (start.empty()) return SimplexResult{start, f(start), 1};
  SimplexResult first = run(f, start, step, tolerance, max_evaluations);
  SimplexResult second = run(f, first.x, step, tolerance, std::max(max_evaluations - first.evaluations, 1));
  second.evaluations += first.evaluations;
  return second.value <= first.value ? second : SimplexResult{first.x, first.value, second.evaluations};
}

}  // namespace ecocompute::decide
