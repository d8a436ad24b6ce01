// The Pareto front of points to minimise in two figures (the optimizer's energy and latency), in
// O(n log n): one sort and one sweep, instead of comparing every pair (a 120,000-candidate grid took
// tens of seconds that way).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace ecocompute::data {

/// A point to minimise in both coordinates.
struct ParetoPoint {
  double x = 0;
  double y = 0;
};

/// Returns the indices of the points no other point dominates (another is ≤ in both coordinates and
/// < in one), ordered by x, then by index. Equal points are all kept. NaN coordinates are not allowed.
std::vector<std::size_t> pareto_front(std::span<const ParetoPoint> points);

}  // namespace ecocompute::data
