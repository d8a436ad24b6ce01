// Pareto front by sorting on x and sweeping the smallest y seen so far.
#include "data/pareto_front.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace ecocompute::data {

std::vector<std::size_t> pareto_front(std::span<const ParetoPoint> points) {
  std::vector<std::size_t> order(points.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (points[a].x != points[b].x) return points[a].x < points[b].x;
    if (points[a].y != points[b].y) return points[a].y < points[b].y;
    return a < b;
  });
  std::vector<std::size_t> front;
  // The smallest y among points of a strictly smaller x: a point at or above it is dominated.
  double best_before = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < order.size();) {
    std::size_t group_end = i;
    while (group_end < order.size() && points[order[group_end]].x == points[order[i]].x) ++group_end;
    // Within one x, only the smallest y survives (with its equals), and only below every smaller x.
    const double group_min = points[order[i]].y;
    if (group_min < best_before) {
      for (std::size_t j = i; j < group_end && points[order[j]].y == group_min; ++j) front.push_back(order[j]);
    }
    best_before = std::min(best_before, group_min);
    i = group_end;
  }
  return front;
}

}  // namespace ecocompute::data
