// Window sizing: how many iterations fill a decode window, and how many prefills a prefill window.
#pragma once

#include <cstdint>
#include <optional>

#include "protocol/design.hpp"
#include "protocol/run_result.hpp"
#include "util/units.hpp"

namespace ecocompute::protocol {

/// Margin on the fastest warm-up time when sizing windows: windows vary by a few percent from trial
/// to trial, and one that falls short of the minimum loses its edge-error bound.
inline constexpr double kWindowSafetyMargin = 1.10;

/// Returns the iteration decision for the given warm-up times (pure arithmetic, see
/// IterationDecision): `fastest_iteration` is the fastest condition's decode-window iteration
/// time (reset + prefill + decode); the update period is the meter's measured one when given.
/// Without an energy counter (`energy_counter` false) there is no edge error to bound, so the
/// window lasts min_window, as the user asked.
[[nodiscard]] IterationDecision decide_iterations(const Design& design, Seconds fastest_iteration,
                                                  std::optional<Seconds> measured_update_period,
                                                  bool energy_counter = true);

/// Returns the prefill repeats that make a prefill window last at least `required` when one
/// prefill takes `prefill_time` (× safety margin), at least 1.
[[nodiscard]] std::int64_t decide_prefill_repeats(Seconds required, Seconds prefill_time,
                                                  double safety_margin);

}  // namespace ecocompute::protocol
