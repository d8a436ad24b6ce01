// Window sizing: iterations per decode window from the warm-up times, prefills per prefill window.
#include "protocol/window_sizing.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

namespace ecocompute::protocol {
namespace {

// Tolerance for ceil() of a ratio that is an integer up to rounding (22 / 2.2 = 10.000000000000002).
constexpr double kCeilTolerance = 1e-9;

std::int64_t ceil_ratio(double numerator, double denominator) {
  return static_cast<std::int64_t>(std::ceil(numerator / denominator - kCeilTolerance));
}

}  // namespace

IterationDecision decide_iterations(const Design& design, Seconds fastest_iteration,
                                    std::optional<Seconds> measured_update_period, bool energy_counter) {
  IterationDecision d;
  d.requested_iterations = design.iterations;
  d.tokens_per_iteration = design.tokens_per_iteration;
  d.update_period_measured = measured_update_period.has_value() && measured_update_period->value > 0.0;
  d.counter_update_period = d.update_period_measured ? *measured_update_period : design.assumed_counter_update_period;
  // Each edge reads a counter that is up to one update period stale; the two stalenesses differ by at
  // most one period, so |error| ≤ P × period and the relative bound is period / window. A window of
  // period / (max_edge_error_pct / 100) keeps it under the limit: 0.1 s / 0.005 = 20 s on H200.
  const Seconds edge_window = d.counter_update_period / (design.max_edge_error_pct / 100.0);
  // Without an energy counter there are no counter edges to bound, and corrected edges carry their
  // own bound per window: the window flags alone decide.
  const bool edge_bound_applies = energy_counter && !design.correct_edges;
  d.required_decode_window = edge_bound_applies ? std::max(design.min_window, edge_window) : design.min_window;
  // Prefill windows follow min_prefill_window alone (default 20 s, which keeps the same 0.5 % bound):
  // they are the minor share of a run's time budget, and their edge bound is reported per window.
  d.required_prefill_window = design.min_prefill_window;
  d.safety_margin = kWindowSafetyMargin;
  d.fastest_iteration_time = fastest_iteration;
  if (fastest_iteration.value <= 0.0) {
    d.iterations = design.iterations;
    d.explanation = fmt::format("{} iterations × {} tokens as requested: the warm-up took no measurable time, so "
                                "the window could not be sized.", d.iterations, d.tokens_per_iteration);
    return d;
  }
  // iterations = max(requested, ⌈required × margin / fastest iteration⌉)
  const std::int64_t needed = ceil_ratio(d.required_decode_window.value * d.safety_margin, fastest_iteration.value);
  d.iterations = static_cast<int>(std::max<std::int64_t>(design.iterations, needed));
  d.predicted_decode_window = fastest_iteration * static_cast<double>(d.iterations);
  const std::string edge_rule =
      energy_counter && design.correct_edges
          ? std::string("edges corrected from the power trace, each window's bound reported with it")
      : energy_counter ? fmt::format("counter update period {:.3f} s {} gives ≤ {} % edge error from {:.1f} s",
                                   d.counter_update_period.value, d.update_period_measured ? "measured" : "assumed",
                                   design.max_edge_error_pct, edge_window.value)
                     : std::string("no energy counter, so no edge bound");
  d.explanation = fmt::format(
      "{} iterations × {} tokens (requested {}): the fastest warm-up iteration took {:.3f} s, so a decode window "
      "lasts about {:.1f} s ≥ {:.1f} s required (min_window {:.1f} s; {}), with a {:.0f} % margin.",
      d.iterations, d.tokens_per_iteration, design.iterations, fastest_iteration.value,
      d.predicted_decode_window.value, d.required_decode_window.value, design.min_window.value, edge_rule,
      (d.safety_margin - 1.0) * 100.0);
  return d;
}

std::int64_t decide_prefill_repeats(Seconds required, Seconds prefill_time, double safety_margin) {
  if (prefill_time.value <= 0.0) return 1;
  return std::max<std::int64_t>(1, ceil_ratio(required.value * safety_margin, prefill_time.value));
}

}  // namespace ecocompute::protocol
