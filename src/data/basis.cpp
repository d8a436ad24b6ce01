// Basis spellings.
#include "data/basis.hpp"

#include <array>
#include <string>

namespace ecocompute::data {

std::string_view to_string(Basis basis) noexcept {
  switch (basis) {
    case Basis::measured: return "measured";
    case Basis::interpolated: return "interpolated";
    case Basis::extrapolated: return "extrapolated";
    case Basis::borrowed: return "borrowed";
    case Basis::unavailable: return "unavailable";
  }
  return "unavailable";
}

Result<Basis> parse_basis(std::string_view text) {
  constexpr std::array all{Basis::measured, Basis::interpolated, Basis::extrapolated, Basis::borrowed,
                           Basis::unavailable};
  for (Basis b : all) {
    if (to_string(b) == text) return b;
  }
  return unexpected(ErrorCode::invalid_input,
                    "unknown basis '" + std::string(text) +
                        "' (expected measured, interpolated, extrapolated, borrowed or unavailable)");
}

}  // namespace ecocompute::data
