// Flattens the field table (energy_fields.hpp) into paths, by walking each section's fields and the
// sections nested in them.
#include "report/energy_field_list.hpp"

#include <algorithm>
#include <type_traits>

#include <fmt/format.h>

#include "report/energy_fields.hpp"

namespace ecocompute::report {
namespace {

template <class T>
std::string type_name() {
  if constexpr (detail::Optional<T>::value) return type_name<typename detail::Optional<T>::type>();
  else if constexpr (std::is_same_v<T, std::string>) return "string";
  else if constexpr (std::is_same_v<T, bool>) return "boolean";
  else if constexpr (std::is_same_v<T, double>) return "number";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "whole number ≥ 0";
  else if constexpr (std::is_integral_v<T>) return "whole number";
  else if constexpr (std::is_enum_v<T>) return fmt::format("string: {}", detail::EnumSpellings<T>::list);
  else if constexpr (std::is_same_v<T, OrderedJson>) return "object (free-form)";
  else if constexpr (detail::Section<T>) return "object";
  else if constexpr (std::is_same_v<T, std::vector<std::string>>) return "array of strings";
  else if constexpr (std::is_same_v<T, std::vector<double>>) return "array of numbers";
  else return "array of objects";
}

const char* since_text(detail::Since since) {
  switch (since) {
    case detail::Since::v1_0: return "1.0";
    case detail::Since::v1_1: return "1.1";
    case detail::Since::v1_2: return "1.2";
  }
  return "1.2";
}

const char* written_text(detail::Presence presence) {
  switch (presence) {
    case detail::Presence::required: return "required";
    case detail::Presence::nullable: return "nullable";
    case detail::Presence::optional: return "optional";
    case detail::Presence::nullable_in_1_2: return "nullable, 1.2 only";
  }
  return "optional";
}

template <class S>
void list_section(const std::string& prefix, const std::optional<FieldBounds>& parent, std::vector<EnergyFieldInfo>& out);

template <class S, class T>
void list_field(const std::string& prefix, const std::optional<FieldBounds>& parent, const detail::Field<S, T>& f,
                std::vector<EnergyFieldInfo>& out) {
  const std::string path = prefix + f.name;
  const std::optional<FieldBounds> bounds = f.bounds ? f.bounds->under(parent) : std::nullopt;
  using B = detail::Bare<T>;
  constexpr bool figure = std::is_arithmetic_v<B> && !std::is_same_v<B, bool>;
  out.push_back({path, type_name<T>(), since_text(f.since), written_text(f.presence), unit_text(f.unit),
                 figure ? bounds : std::nullopt, f.in_every_1_2});
  if constexpr (detail::Section<B>) {
    list_section<B>(path + ".", bounds, out);
  } else if constexpr (detail::Vector<B>::value) {
    if constexpr (detail::Section<typename detail::Vector<B>::type>) {
      list_section<typename detail::Vector<B>::type>(path + "[].", bounds, out);
    }
  }
}

template <class S>
void list_section(const std::string& prefix, const std::optional<FieldBounds>& parent, std::vector<EnergyFieldInfo>& out) {
  detail::for_each_field(detail::Table<S>::fields(), [&](const auto& field) { list_field(prefix, parent, field, out); });
}

// "trials[3].decode.tokens" → "trials[].decode.tokens".
std::string without_indices(const std::string& path) {
  std::string out;
  for (std::size_t i = 0; i < path.size(); ++i) {
    out += path[i];
    if (path[i] != '[') continue;
    while (i + 1 < path.size() && path[i + 1] != ']') ++i;
  }
  return out;
}

}  // namespace

const std::vector<EnergyFieldInfo>& energy_report_fields() {
  static const std::vector<EnergyFieldInfo> fields = [] {
    std::vector<EnergyFieldInfo> out;
    list_section<EnergyReport>("", std::nullopt, out);
    return out;
  }();
  return fields;
}

bool is_energy_report_field(const std::string& path) { return find_energy_report_field(path) != nullptr; }

const EnergyFieldInfo* find_energy_report_field(const std::string& path) {
  const std::string general = without_indices(path);
  const auto& fields = energy_report_fields();
  const auto it = std::find_if(fields.begin(), fields.end(), [&](const EnergyFieldInfo& f) { return f.path == general; });
  return it == fields.end() ? nullptr : &*it;
}

std::string energy_fields_markdown() {
  std::string out = "| field | type | since | written | 1.2 requires | unit | range |\n|---|---|---|---|---|---|---|\n";
  for (const EnergyFieldInfo& f : energy_report_fields()) {
    out += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} |\n", f.path, f.type, f.since, f.written,
                       f.in_every_1_2 ? "yes" : "", f.unit, f.bounds ? f.bounds->text() : "");
  }
  return out;
}

}  // namespace ecocompute::report
