// Basis: where a number comes from (measured at that point, read off a curve, or not available).
#pragma once

#include <string_view>

#include "util/result.hpp"

namespace ecocompute::data {

/// How a number was obtained. Only `measured` rows feed fits; an estimate is never stored as measured.
enum class Basis {
  measured,      ///< a measurement (or, for an estimate, a measured anchor at that size)
  interpolated,  ///< read off a fitted curve inside its measured size range
  extrapolated,  ///< read off a fitted curve outside its measured size range (always said so)
  borrowed,      ///< read off another GPU architecture's curve
  unavailable,   ///< no curve or data supports a number
};

/// Returns the spelling used in JSON and on the command line ("measured", …).
std::string_view to_string(Basis basis) noexcept;

/// Parses a basis spelling; the error names the value.
Result<Basis> parse_basis(std::string_view text);

}  // namespace ecocompute::data
