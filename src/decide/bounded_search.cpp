// BOBYQA through NLopt, quasi-random starts and the best of them (see bounded_search.hpp).
#include "decide/bounded_search.hpp"

#include <nlopt.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "util/parallel_for.hpp"

namespace ecocompute::decide {
namespace {

struct Call {
  const SearchObjective* f;
  std::vector<double> x;
  int evaluations = 0;
};

double nlopt_objective(unsigned n, const double* x, double* gradient, void* data) {
  (void)gradient;  // BOBYQA asks for none
  auto* call = static_cast<Call*>(data);
  call->x.assign(x, x + n);
  ++call->evaluations;
  const double value = (*call->f)(call->x);
  // NLopt's BOBYQA stops on a NaN; a covariance that does not factor is just a bad point.
  return std::isfinite(value) ? value : std::numeric_limits<double>::max();
}

std::vector<int> first_primes(std::size_t count) {
  std::vector<int> primes;
  for (int n = 2; primes.size() < count; ++n) {
    if (std::none_of(primes.begin(), primes.end(), [n](int p) { return n % p == 0; })) primes.push_back(n);
  }
  return primes;
}

double radical_inverse(int index, int base) {
  double fraction = 1.0, out = 0.0;
  for (int i = index; i > 0; i /= base) {
    fraction /= base;
    out += fraction * (i % base);
  }
  return out;
}

// Runs `search` on every start (util/parallel_for.hpp), the results kept in the starts' order.
template <class Search>
std::vector<SearchResult> each_in_parallel(const std::vector<std::vector<double>>& starts, const Search& search) {
  std::vector<SearchResult> out(starts.size());
  parallel_for(starts.size(), [&](std::size_t i) { out[i] = search(starts[i]); });
  return out;
}

}  // namespace

SearchResult bobyqa(const SearchObjective& f, std::vector<double> start, const Box& box, double step, double tolerance,
                    int max_evaluations) {
  const std::size_t n = start.size();
  SearchResult out;
  out.starts = 1;
  std::vector<double> steps(n, step);
  for (std::size_t i = 0; i < n; ++i) {
    start[i] = std::clamp(start[i], box.lower[i], box.upper[i]);
    // BOBYQA's first points lie one step from the start inside the box; a box narrower than two
    // steps takes a step of half its width.
    steps[i] = std::max(std::min(step, 0.5 * (box.upper[i] - box.lower[i])), 1e-6);
  }
  if (n == 0) {
    out.value = f(start);
    out.evaluations = 1;
    return out;
  }
  const std::unique_ptr<nlopt_opt_s, decltype(&nlopt_destroy)> opt(nlopt_create(NLOPT_LN_BOBYQA, static_cast<unsigned>(n)),
                                                                   &nlopt_destroy);
  Call call{&f, {}, 0};
  nlopt_set_lower_bounds(opt.get(), box.lower.data());
  nlopt_set_upper_bounds(opt.get(), box.upper.data());
  nlopt_set_min_objective(opt.get(), nlopt_objective, &call);
  nlopt_set_ftol_abs(opt.get(), tolerance);
  nlopt_set_maxeval(opt.get(), max_evaluations);
  nlopt_set_initial_step(opt.get(), steps.data());
  double value = std::numeric_limits<double>::infinity();
  // Whatever NLopt returns (a tolerance met, the budget spent, a roundoff stop), `start` holds the
  // best point it saw and `value` its objective.
  (void)nlopt_optimize(opt.get(), start.data(), &value);
  out.x = std::move(start);
  out.value = value == std::numeric_limits<double>::max() ? std::numeric_limits<double>::infinity() : value;
  out.evaluations = call.evaluations;
  return out;
}

std::vector<std::vector<double>> halton_points(const std::vector<double>& from, const std::vector<double>& to, int count) {
  const std::vector<int> bases = first_primes(from.size());
  std::vector<std::vector<double>> points;
  for (int k = 1; k <= count; ++k) {
    std::vector<double> p(from.size());
    for (std::size_t i = 0; i < from.size(); ++i) p[i] = from[i] + (to[i] - from[i]) * radical_inverse(k, bases[i]);
    points.push_back(std::move(p));
  }
  return points;
}

SearchResult best_of_starts(const SearchObjective& f, const std::vector<std::vector<double>>& starts, const Box& box,
                            const MultiStart& how) {
  int evaluations = 0;
  std::vector<SearchResult> screened = each_in_parallel(starts, [&](const std::vector<double>& start) {
    return bobyqa(f, start, box, how.step, how.screen_tolerance, how.screen_evaluations);
  });
  for (const SearchResult& r : screened) evaluations += r.evaluations;
  // Stable: of equal ends the earlier start's (the given one first) is refined.
  std::stable_sort(screened.begin(), screened.end(), [](const SearchResult& a, const SearchResult& b) { return a.value < b.value; });
  screened.resize(std::min<std::size_t>(screened.size(), static_cast<std::size_t>(std::max(how.refine, 1))));
  std::vector<std::vector<double>> ends_of_screening;
  for (SearchResult& r : screened) ends_of_screening.push_back(std::move(r.x));
  std::vector<SearchResult> refined = each_in_parallel(ends_of_screening, [&](const std::vector<double>& from) {
    return bobyqa(f, from, box, how.step, how.tolerance, how.max_evaluations);
  });
  SearchResult best;
  best.value = std::numeric_limits<double>::infinity();
  std::vector<double> ends;
  for (SearchResult& r : refined) {
    evaluations += r.evaluations;
    ends.push_back(r.value);
    if (r.value < best.value || best.x.empty()) best = std::move(r);
  }
  for (int restart = 0; restart < 3 && !best.x.empty(); ++restart) {
    SearchResult r = bobyqa(f, best.x, box, how.step, how.tolerance, how.max_evaluations);
    evaluations += r.evaluations;
    const bool gained = r.value < best.value - how.tolerance;
    if (r.value < best.value) best = std::move(r);
    if (!gained) break;
  }
  best.evaluations = evaluations;
  best.starts = static_cast<int>(starts.size());
  best.refined = static_cast<int>(ends.size());
  best.refined_at_best = static_cast<int>(
      std::count_if(ends.begin(), ends.end(), [&](double v) { return std::isfinite(v) && v <= best.value + how.agree; }));
  return best;
}

}  // namespace ecocompute::decide
