// Energy per token at each server occupancy. A level's steady window mixes the batches a continuous-
// batching server ran (its occupancy trace, server_occupancy.hpp), and energy per token depends on the
// batch; the window's one J/token is a mixture. This splits the window by occupancy: each span between
// two /metrics readings takes the energy the GPU's power trace shows over it, scaled so that the spans
// of the whole window add up to the window's counter energy (the counter is the measurement; the trace
// only says how it was spread in time), and the output tokens whose chunks arrived inside it.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "protocol/serving_level.hpp"

namespace ecocompute::protocol {

/// What a set of spans at one occupancy held.
struct OccupancyEnergy {
  double seconds = 0.0;
  double joules = 0.0;
  double tokens = 0.0;  ///< output tokens (serving_level.hpp's counting rule)
};

/// One trial's steady window split by occupancy, or why it could not be.
struct OccupancySplit {
  std::map<int, OccupancyEnergy> at;  ///< by running requests (the reading rounded to a whole request)
  double window_joules = 0.0;         ///< the window's counter energy
  std::string not_split;              ///< why nothing was split (no energy, readings or power trace); empty when split
};

/// Splits an ok trial's steady window by the server's occupancy (see above). Time before the first
/// reading is not covered (as in OccupancyShares), so the spans add up to the window's energy only when
/// the readings began before it.
[[nodiscard]] OccupancySplit split_by_occupancy(const LevelRun& run);

/// Adds `part` into `total`, occupancy by occupancy.
void add_split(std::map<int, OccupancyEnergy>& total, const std::map<int, OccupancyEnergy>& part);

}  // namespace ecocompute::protocol
