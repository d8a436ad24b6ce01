// Record: one output row, a list of named fields (name, unit, value) built from a single field table.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ecocompute::report {

/// The type of a column, which decides how each printer writes it (SQL: TEXT, INTEGER, REAL).
enum class ValueType { text, integer, real, boolean, samples };

/// One cell: absent (null), text, integer, real, boolean, or a list of raw samples.
using Value = std::variant<std::monostate, std::string, std::int64_t, double, bool, std::vector<double>>;

/// A column: its name (a JSON/CSV key with the unit as suffix), unit, type, and the short name the
/// human table shows. `key` columns are shown in human tables even when they do not vary.
struct Column {
  std::string name;
  std::string unit;
  ValueType type = ValueType::text;
  std::string display;
  bool key = false;
  int decimals = -1;  ///< digits after the point in human tables; -1: the shortest exact form

  bool operator==(const Column&) const = default;
};

/// A cell with its column.
struct Field {
  Column column;
  Value value;
};

/// One output row. Fields keep the order they were added in; names are unique.
class Record {
 public:
  /// Appends a field; throws InvariantError when `column.name` is already present or the value's
  /// type does not match the column's (null is allowed for every type).
  void add(Column column, Value value);

  [[nodiscard]] const std::vector<Field>& fields() const noexcept { return fields_; }
  /// Returns the field named `name`, or nullptr.
  [[nodiscard]] const Field* find(std::string_view name) const;
  /// Returns the value of `name` as a double when it is an integer or real, else nothing.
  [[nodiscard]] std::optional<double> number(std::string_view name) const;

 private:
  std::vector<Field> fields_;
};

/// Returns whether a value is null.
[[nodiscard]] bool is_null(const Value& value) noexcept;

/// Formats a value for text output: integers in decimal, reals in the shortest form that reads back
/// exactly, booleans as "true"/"false", samples joined by ";", null as "".
[[nodiscard]] std::string format_value(const Value& value);

}  // namespace ecocompute::report
