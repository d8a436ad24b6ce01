// The decision model's between-card spread, for `compare`: how far two cards of one GPU model differ at
// a place, so that a difference between two sessions can be told from what cards do.
#pragma once

#include <optional>
#include <string>

#include "data/comparison.hpp"
#include "decide/evidence.hpp"

namespace ecocompute::decide {

/// The 95 % half-width, in percentage points of ΔE, of the difference between two cards measuring
/// `precision` with `engine` on `arch` at `params_b` and `batch` around ΔE `delta_pct`; nullopt when the
/// model does not know the format.
std::optional<double> between_cards_pp(const Evidence& evidence, const std::string& arch, const std::string& engine,
                                       const std::string& precision, double delta_pct);

/// Fills each pair's between_cards_pp and beyond_between_cards (side A's architecture and engine).
void add_between_card_spread(data::Comparison& comparison, const Evidence& evidence);

}  // namespace ecocompute::decide
