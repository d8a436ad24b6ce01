// The /v1/architectures answer in the published shape: one entry per architecture, keyed by its name,
// with the published label, per precision its measured size range and crossover size, and for an
// architecture with no curves of its own the one it borrows from by default.
#pragma once

#include "data/curve_set.hpp"
#include "util/json.hpp"

namespace ecocompute::data {

/// Returns the published label of an architecture ("Ampere (A100/A800)"), the input when unknown.
std::string architecture_label(std::string_view arch);

/// {"ada": {"label", "precisions": {"NF4": {"measured_range_b", "crossover_b", "engine", "engines"}}},
///  "hopper": {"label", "borrows_from": "ampere", "precisions": {}}, …}. Several engines may measure
/// one precision: the entry is the precision's usual engine's curve (else the first), and `engines`
/// lists every engine's range.
Json published_architectures_json(const CurveSet& curves);

}  // namespace ecocompute::data
