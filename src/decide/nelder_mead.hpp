// Nelder–Mead simplex minimisation (Nelder & Mead 1965, with the standard coefficients 1, 2, ½, ½):
// derivative-free, for the few variance parameters of the decision model's restricted likelihood.
#pragma once

#include <functional>
#include <vector>

namespace ecocompute::decide {

struct SimplexResult {
  std::vector<double> x;
  double value = 0;
  int evaluations = 0;
};

/// Minimises `f` from `start` with initial steps `step` per coordinate; stops when the simplex's
/// values differ by less than `tolerance` or after `max_evaluations`. Restarts once from the best
/// point (a collapsed simplex can stall short of the minimum).
SimplexResult nelder_mead(const std::function<double(const std::vector<double>&)>& f, std::vector<double> start,
                          const std::vector<double>& step, double tolerance, int max_evaluations);

}  // namespace ecocompute::decide
