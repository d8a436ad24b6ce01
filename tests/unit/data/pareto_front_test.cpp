// The sweep's front against the definition (every pair compared) on random points with many ties.
#include "data/pareto_front.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ecocompute::data {
namespace {

std::vector<std::size_t> by_definition(const std::vector<ParetoPoint>& points) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const bool dominated = std::any_of(points.begin(), points.end(), [&](const ParetoPoint& o) {
      return o.x <= points[i].x && o.y <= points[i].y && (o.x < points[i].x || o.y < points[i].y);
    });
    if (!dominated) out.push_back(i);
  }
  std::sort(out.begin(), out.end(), [&](std::size_t a, std::size_t b) {
    return points[a].x != points[b].x ? points[a].x < points[b].x : a < b;
  });
  return out;
}

TEST(ParetoFront, KeepsExactlyThePointsNoOtherDominates) {
  std::uint64_t state = 42;
  auto next = [&](int range) {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<double>((state >> 33) % static_cast<std::uint64_t>(range));
  };
  for (int round = 0; round < 300; ++round) {
    std::vector<ParetoPoint> points;
    const int n = round % 40;
    const int range = 1 + round % 9;  // small ranges: many equal coordinates
    for (int i = 0; i < n; ++i) points.push_back({next(range), next(range)});
    EXPECT_EQ(pareto_front(points), by_definition(points)) << "round " << round;
  }
}

TEST(ParetoFront, OrdersTheFrontByXAndKeepsEqualPoints) {
  const std::vector<ParetoPoint> points{{3, 1}, {1, 3}, {2, 2}, {2, 2}, {2, 5}, {4, 4}};
  EXPECT_EQ(pareto_front(points), (std::vector<std::size_t>{1, 2, 3, 0}));
  EXPECT_TRUE(pareto_front({}).empty());
}

}  // namespace
}  // namespace ecocompute::data
