// Edge correction: the energy a counter reading has not yet counted at a window edge, from the power
// trace between the counter's last update and the edge. Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "meter/measurement.hpp"
#include "util/result.hpp"
#include "util/units.hpp"

namespace ecocompute::meter {

/// A change of the counter's value seen by polling: when the last read that still showed the old
/// value began and when the first that showed `energy_mj` returned. The update happened between the
/// two (wall clock, µs).
struct CounterChange {
  std::uint64_t last_old_us = 0;
  std::uint64_t first_new_us = 0;
  std::uint64_t energy_mj = 0;
};

/// The energy spent between the counter's last update and an edge, and its ± bound.
struct EdgeStaleness {
  Joules energy{0.0};
  Joules uncertainty{0.0};
  std::uint64_t update_us = 0;  ///< the update instant taken: the middle of the change's interval
};

/// Returns the change after which the counter read `energy_mj`, searching from the newest; nullopt
/// when no polled change led to that value (the counter had it before polling began, or the change
/// has been forgotten).
std::optional<CounterChange> change_to(const std::vector<CounterChange>& changes, std::uint64_t energy_mj);

/// Returns the staleness of a counter reading taken at `edge_us` whose value appeared with `change`:
/// the trace's energy from the update instant (the middle of the change's interval, at most the edge)
/// to the edge. Its bound adds the update's timing
/// (edge power × half the change interval) and the trace's spread over that span ((max − min sample
/// power) × span). Fails (unavailable) when the trace does not cover the span.
Result<EdgeStaleness> edge_staleness(const CounterChange& change, std::uint64_t edge_us, Watts edge_power,
                                     const std::vector<PowerSample>& trace, std::uint64_t edge_tolerance_us);

}  // namespace ecocompute::meter
