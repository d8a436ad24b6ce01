// Walks the typed report through the field table, carrying each section's range down to the spreads
// that take it.
#include "report/figure_ranges.hpp"

#include <type_traits>

#include <fmt/format.h>

#include "report/energy_fields.hpp"

namespace ecocompute::report {
namespace {

using Range = std::optional<FieldBounds>;
using Found = std::optional<std::string>;

template <class S>
void check_section(const S& section, const std::string& prefix, const Range& parent, Found& found);

template <class T>
void check_value(const T& value, const std::string& path, const Range& range, detail::Unit unit, Found& found) {
  if constexpr (detail::Optional<T>::value) {
    if (value) check_value(*value, path, range, unit, found);
  } else if constexpr (detail::Section<T>) {
    check_section(value, path + ".", range, found);
  } else if constexpr (detail::Vector<T>::value) {
    if constexpr (detail::Section<typename detail::Vector<T>::type>) {
      for (std::size_t i = 0; i < value.size() && !found; ++i) check_section(value[i], fmt::format("{}[{}].", path, i), range, found);
    }
  } else if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
    if (range && !range->contains(static_cast<double>(value))) {
      const std::string unit_name = detail::unit_text(unit);
      found = fmt::format("{} {:g} is outside {}{}{}", path, static_cast<double>(value), range->text(),
                          unit_name.empty() ? "" : " ", unit_name);
    }
  }
}

template <class S>
void check_section(const S& section, const std::string& prefix, const Range& parent, Found& found) {
  detail::for_each_field(detail::Table<S>::fields(), [&](const auto& field) {
    if (found) return;
    const Range range = field.bounds ? field.bounds->under(parent) : std::nullopt;
    check_value(section.*field.member, prefix + field.name, range, field.unit, found);
  });
}

}  // namespace

std::optional<std::string> figure_out_of_range(const EnergyReport& report) {
  Found found;
  check_section(report, "", std::nullopt, found);
  return found;
}

}  // namespace ecocompute::report
