// Power-trace and counter arithmetic: trapezoid energy over a window, sample spacing, the counter's
// update period from polled readings, and agreement between two energies. Pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "meter/measurement.hpp"
#include "util/median.hpp"
#include "util/units.hpp"

namespace ecocompute::meter {

/// One poll of the energy counter: when it was read and what it said.
struct CounterReading {
  Seconds time{0.0};
  std::uint64_t energy_mj = 0;
};

/// Returns the median interval between successive changes of the counter value (the first change
/// seen starts the first interval); nullopt with fewer than two changes.
std::optional<Seconds> counter_update_period(const std::vector<CounterReading>& readings);

/// Returns the value at quantile q ∈ [0,1] (nearest rank); nullopt when empty.
std::optional<double> quantile(std::vector<double> values, double q);

/// Returns the median spacing between successive trace samples; nullopt with fewer than two.
std::optional<Seconds> median_sample_spacing(const std::vector<PowerSample>& trace);

/// Returns the samples with begin_us ≤ timestamp ≤ end_us, in time order.
std::vector<PowerSample> samples_in(const std::vector<PowerSample>& trace, std::uint64_t begin_us,
                                    std::uint64_t end_us);

/// Integrates the piecewise-linear trace over [begin_us, end_us] (trapezoids; the segments that cross
/// an edge are cut at the edge). If the trace starts after begin_us or ends before end_us by at most
/// `edge_tolerance_us`, the nearest sample's power is held to the edge; by more, returns nullopt.
std::optional<Joules> trace_energy(const std::vector<PowerSample>& trace, std::uint64_t begin_us,
                                   std::uint64_t end_us, std::uint64_t edge_tolerance_us);

/// Returns (other − reference) / reference × 100; nullopt when reference is 0.
std::optional<double> disagreement_pct(Joules other, Joules reference);

}  // namespace ecocompute::meter
