// Minimising a smooth function of a few bounded variables without derivatives, for the variance
// components of the decision model's restricted likelihood: NLopt's BOBYQA (Powell 2009, a quadratic
// model in a trust region, bounds kept exactly), from many starts. A restricted likelihood of length
// scales and variances has local optima far apart (docs/decision-layer.md, "Estimation": on the 2026-12
// llama.cpp evidence 15 of 40 quasi-random starts reached the best one, the others stopped 5–480 units
// of −2 ln L short), so one search from one start decides nothing.
#pragma once

#include <functional>
#include <vector>

namespace ecocompute::decide {

using SearchObjective = std::function<double(const std::vector<double>&)>;

struct SearchResult {
  std::vector<double> x;
  double value = 0;
  int evaluations = 0;
  int starts = 0;           ///< starts screened
  int refined = 0;          ///< the best screened ends searched to the full tolerance
  int refined_at_best = 0;  ///< refined ends within `agree` of the best value
};

struct Box {
  std::vector<double> lower, upper;
};

/// One BOBYQA search from `start` (moved into the box), first steps `step` (shrunk to fit the box),
/// until a step changes `f` by less than `tolerance` or after `max_evaluations`. A value that is
/// not finite counts as +∞ to the search.
SearchResult bobyqa(const SearchObjective& f, std::vector<double> start, const Box& box, double step, double tolerance,
                    int max_evaluations);

/// `count` quasi-random points spread over [from_i, to_i] per coordinate: the Halton sequence (one
/// prime base per coordinate), points 1 … count. Deterministic: the same box gives the same points.
std::vector<std::vector<double>> halton_points(const std::vector<double>& from, const std::vector<double>& to, int count);

/// How best_of_starts searches: every start screened by a short, loose search (most ends of a
/// multimodal likelihood are poor, and telling them apart needs no precision), the `refine` best ends
/// searched on to `tolerance`, the best of those restarted until a restart gains less than
/// `tolerance` (three times at most: a trust region shrunk on a ridge can stop short of the minimum).
/// The screening and refining searches run on every core (`f` must be safe to call from several
/// threads at once); the result does not depend on how many there are.
struct MultiStart {
  double step = 1.0;
  double screen_tolerance = 0.1;
  int screen_evaluations = 150;
  int refine = 4;
  double tolerance = 1e-6;
  int max_evaluations = 5000;
  double agree = 0.01;  ///< how close a refined end must come to the best to count as having reached it
};

SearchResult best_of_starts(const SearchObjective& f, const std::vector<std::vector<double>>& starts, const Box& box,
                            const MultiStart& how);

}  // namespace ecocompute::decide
