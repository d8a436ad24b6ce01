// Resolving, testing and printing a field's range.
#include "report/field_bounds.hpp"

#include <cmath>

#include <fmt/format.h>

namespace ecocompute::report {

std::optional<FieldBounds> FieldBounds::under(const std::optional<FieldBounds>& parent) const {
  switch (of) {
    case Of::self: return *this;
    case Of::parent: return parent;
    case Of::parent_signed:
      if (!parent) return std::nullopt;
      return FieldBounds{-parent->high, parent->high};
  }
  return std::nullopt;
}

bool FieldBounds::contains(double value) const noexcept {
  const bool above_low = low_open ? value > low : value >= low;
  const bool below_high = high_open ? value < high : value <= high;
  return above_low && below_high;
}

std::string FieldBounds::text() const {
  return fmt::format("{}{:g}, {:g}{}", low_open || std::isinf(low) ? '(' : '[', low, high,
                     high_open || std::isinf(high) ? ')' : ']');
}

}  // namespace ecocompute::report
