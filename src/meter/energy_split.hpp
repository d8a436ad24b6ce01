// EnergySplit: gross window energy, the idle share of it, and the net energy of the work.
#pragma once

#include "meter/measurement.hpp"
#include "util/result.hpp"
#include "util/units.hpp"

namespace ecocompute::meter {

/// Gross, idle and net energy of one window; all three are reported, never mixed.
struct EnergySplit {
  Joules gross{0.0};  ///< the window's counter energy
  Joules idle{0.0};   ///< idle power × window duration
  Joules net{0.0};    ///< gross − idle
};

/// Returns the split for a window of `gross` energy and `duration`, given the idle power measured
/// in an idle baseline window (context open, no work). Net may be negative; it is not clamped.
EnergySplit split_energy(Joules gross, Seconds duration, Watts idle_power);

/// Returns the split of a valid `window` against a valid `idle_baseline`; Error{measurement}
/// naming the window when either has no energy.
Result<EnergySplit> split_energy(const Measurement& window, const Measurement& idle_baseline);

}  // namespace ecocompute::meter
