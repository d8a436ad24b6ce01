// The machinery of the typed field table: one Field per JSON member (name, member pointer, presence,
// schema version, unit), and one generic reader and writer that walk a section's fields. The table
// itself is energy_fields.hpp; a C++ type's JSON form (string, whole number, enum spelling, nested
// section…) is decided here once, from the member's type, so a field is declared by its name alone.
// Internal to report/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "report/field_bounds.hpp"
#include "report/report_json.hpp"
#include "util/json.hpp"

namespace ecocompute::report::detail {

/// The first schema version with the field.
enum class Since { v1_0, v1_1, v1_2 };
inline constexpr Since v1_0 = Since::v1_0;
inline constexpr Since v1_1 = Since::v1_1;
inline constexpr Since v1_2 = Since::v1_2;

/// How a field is written. required: always; nullable: null when absent where its section writes
/// nulls, left out otherwise; optional: left out when absent; nullable_in_1_2: like nullable, and left
/// out of 1.0/1.1 reports even when read from one (figures 1.1 has no place for).
enum class Presence { required, nullable, optional, nullable_in_1_2 };

/// Whether a section writes null for an absent nullable field: always (sections only 1.2 has), or
/// only in a 1.2 report (sections a published 1.1 report has too, which carry no nulls there).
enum class Nulls { always, in_1_2 };

/// The unit a figure is in; its name carries it too (_mj, _j, _w, _s, _pct).
enum class Unit { none, mJ, J, W, s, pct, tokens_per_s, Hz, bytes, billions };

/// The unit as the docs and messages print it ("" for none).
inline const char* unit_text(Unit unit) {
  switch (unit) {
    case Unit::none: return "";
    case Unit::mJ: return "mJ";
    case Unit::J: return "J";
    case Unit::W: return "W";
    case Unit::s: return "s";
    case Unit::pct: return "%";
    case Unit::tokens_per_s: return "tokens/s";
    case Unit::Hz: return "Hz";
    case Unit::bytes: return "bytes";
    case Unit::billions: return "billions";
  }
  return "";
}

/// One JSON member of section S, held in S::*member. Absent on reading, a required field takes
/// `fallback`; `check`, when set, refuses a value read with the message it returns. `bounds` is the
/// range of a figure (for a section: the range its spread's figures take), checked by the 1.2 schema
/// and on upload, not on reading. `in_every_1_2`: the 1.2 schema requires the member; true for what
/// the writer always writes in 1.2, and for members optional in memory that every run fills.
template <class S, class T>
struct Field {
  const char* name;
  T S::*member;
  Presence presence;
  Since since;
  Unit unit = Unit::none;
  T fallback{};
  std::optional<std::string> (*check)(const T&) = nullptr;
  std::optional<FieldBounds> bounds{};
  bool in_every_1_2 = false;

  [[nodiscard]] Field absent_as(T value) const {
    Field copy = *this;
    copy.fallback = std::move(value);
    return copy;
  }
  [[nodiscard]] Field checked_by(std::optional<std::string> (*rule)(const T&)) const {
    Field copy = *this;
    copy.check = rule;
    return copy;
  }
  [[nodiscard]] Field within(FieldBounds range) const {
    Field copy = *this;
    copy.bounds = range;
    return copy;
  }
  /// Optional in memory (a published report may lack it), but every 1.2 run writes it.
  [[nodiscard]] Field always_in_1_2() const {
    Field copy = *this;
    copy.in_every_1_2 = true;
    return copy;
  }
  /// Written in every 1.2 report, yet required only by the schema's rule for the scenario.
  [[nodiscard]] Field by_scenario_in_1_2() const {
    Field copy = *this;
    copy.in_every_1_2 = false;
    return copy;
  }
};

/// Table<S>: `nulls` and `fields()` (a tuple of Field<S, …>) of one section; see energy_fields.hpp.
template <class S>
struct Table;

/// The spellings of an enum written as text: `to_string` and `parse` (energy_report.hpp) for each.
template <class E>
struct EnumSpellings;

template <class T>
concept Section = requires { Table<T>::fields(); };

template <class T>
struct Optional : std::false_type {};
template <class T>
struct Optional<std::optional<T>> : std::true_type {
  using type = T;
};
template <class T>
struct Vector : std::false_type {};
template <class T>
struct Vector<std::vector<T>> : std::true_type {
  using type = T;
};
/// The value type of a member: T for std::optional<T>.
template <class T>
using Bare = typename std::conditional_t<Optional<T>::value, Optional<T>, std::type_identity<T>>::type;

template <class S, class T>
[[nodiscard]] Field<S, T> required(const char* name, T S::*member, Since since, Unit unit = Unit::none) {
  static_assert(!Optional<T>::value, "a required field is never absent in memory");
  Field<S, T> field{name, member, Presence::required, since, unit};
  field.in_every_1_2 = true;
  if constexpr (std::is_same_v<T, OrderedJson>) field.fallback = OrderedJson::object();
  return field;
}
template <class S, class T>
[[nodiscard]] Field<S, T> nullable(const char* name, T S::*member, Since since, Unit unit = Unit::none) {
  Field<S, T> field{name, member, Presence::nullable, since, unit};
  field.in_every_1_2 = true;
  if constexpr (std::is_same_v<T, OrderedJson>) field.fallback = OrderedJson::object();
  return field;
}
template <class S, class T>
[[nodiscard]] Field<S, T> optional(const char* name, T S::*member, Since since, Unit unit = Unit::none) {
  return Field<S, T>{name, member, Presence::optional, since, unit};
}
template <class S, class T>
[[nodiscard]] Field<S, T> nullable_in_1_2(const char* name, T S::*member, Since since, Unit unit = Unit::none) {
  Field<S, T> field{name, member, Presence::nullable_in_1_2, since, unit};
  field.in_every_1_2 = true;
  return field;
}

template <class F>
void for_each_field(const auto& table, F&& visit) {
  std::apply([&](const auto&... field) { (visit(field), ...); }, table);
}

// --- reading ---------------------------------------------------------------------------------------

template <Section S>
[[nodiscard]] S read_section(const JsonReader& reader);

/// The member `key` as a B, or nothing when it is absent or null; the wrong type fails naming the key.
template <class B>
[[nodiscard]] std::optional<B> read_value(const JsonReader& r, const char* key) {
  if constexpr (std::is_same_v<B, std::string>) return r.text(key);
  else if constexpr (std::is_same_v<B, bool>) return r.boolean(key);
  else if constexpr (std::is_same_v<B, double>) return r.number(key);
  else if constexpr (std::is_same_v<B, std::uint64_t>) return r.unsigned_integer(key);
  else if constexpr (std::is_integral_v<B>) {
    // Narrower counts (int, uint32) are read as 64-bit whole numbers and narrowed, as they always were.
    if (auto n = r.integer(key)) return static_cast<B>(*n);
    return std::nullopt;
  } else if constexpr (std::is_enum_v<B>) {
    if (auto text = r.text(key)) return r.parsed(key, EnumSpellings<B>::parse(*text));
    return std::nullopt;
  } else if constexpr (std::is_same_v<B, OrderedJson>) {
    if (auto object = r.object(key)) return object->json();
    return std::nullopt;
  } else if constexpr (Section<B>) {
    if (auto object = r.object(key)) return read_section<B>(*object);
    return std::nullopt;
  } else if constexpr (std::is_same_v<B, std::vector<std::string>>) return r.texts(key);
  else if constexpr (std::is_same_v<B, std::vector<double>>) return r.numbers(key);
  else {
    static_assert(Vector<B>::value && Section<typename Vector<B>::type>, "no JSON form for this member type");
    auto objects = r.objects(key);
    if (!objects) return std::nullopt;
    B list;
    for (const JsonReader& item : *objects) list.push_back(read_section<typename Vector<B>::type>(item));
    return list;
  }
}

template <class S, class T>
void read_field(const JsonReader& r, const Field<S, T>& f, S& into) {
  T& member = into.*f.member;
  if constexpr (Optional<T>::value) {
    member = read_value<Bare<T>>(r, f.name);
  } else if constexpr (std::is_enum_v<T>) {
    // An absent required enum is the empty spelling, which its parse refuses, naming the field.
    member = r.parsed(f.name, EnumSpellings<T>::parse(r.text_or(f.name, "")));
  } else if constexpr (Section<T>) {
    // An absent section reads as an empty one: its own required fields then say what is missing.
    member = read_section<T>(r.object_or_empty(f.name));
  } else {
    member = read_value<T>(r, f.name).value_or(f.fallback);
  }
  if (f.check != nullptr) {
    if (auto why = f.check(member)) r.fail(f.name, *why);
  }
}

template <Section S>
S read_section(const JsonReader& reader) {
  S section{};
  for_each_field(Table<S>::fields(), [&](const auto& field) { read_field(reader, field, section); });
  return section;
}

// --- writing ---------------------------------------------------------------------------------------

template <Section S>
[[nodiscard]] OrderedJson section_json(const S& section, bool v12);

template <class B>
[[nodiscard]] OrderedJson value_json(const B& value, bool v12) {
  if constexpr (Section<B>) {
    return section_json(value, v12);
  } else if constexpr (std::is_enum_v<B>) {
    return std::string(to_string(value));
  } else if constexpr (Vector<B>::value && Section<typename Vector<B>::type>) {
    OrderedJson list = OrderedJson::array();
    for (const auto& item : value) list.push_back(section_json(item, v12));
    return list;
  } else {
    return OrderedJson(value);
  }
}

/// Absent: an empty optional, an empty list, an empty free-form object.
template <class T>
[[nodiscard]] bool is_absent(const T& value) {
  if constexpr (Optional<T>::value) return !value.has_value();
  else if constexpr (Vector<T>::value) return value.empty();
  else if constexpr (std::is_same_v<T, OrderedJson>) return value.empty();
  else return false;
}

template <class S, class T>
void write_field(OrderedJson& out, const Field<S, T>& f, const S& section, bool v12, bool nulls) {
  const T& value = section.*f.member;
  if (f.presence == Presence::nullable_in_1_2 && !v12) return;
  if (f.presence == Presence::required || !is_absent(value)) {
    if constexpr (Optional<T>::value) {
      out[f.name] = value_json(*value, v12);
    } else {
      out[f.name] = value_json(value, v12);
    }
  } else if (f.presence != Presence::optional && nulls) {
    // A free-form object has no null of its own: where its key is due, the empty object stands.
    if constexpr (std::is_same_v<T, OrderedJson>) {
      out[f.name] = value;
    } else {
      out[f.name] = nullptr;
    }
  }
}

template <Section S>
OrderedJson section_json(const S& section, bool v12) {
  OrderedJson out = OrderedJson::object();
  const bool nulls = Table<S>::nulls == Nulls::always || v12;
  for_each_field(Table<S>::fields(), [&](const auto& field) { write_field(out, field, section, v12, nulls); });
  return out;
}

}  // namespace ecocompute::report::detail
