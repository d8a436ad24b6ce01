// Record: field bookkeeping and value formatting.
#include "report/record.hpp"

#include <fmt/format.h>

#include "util/check.hpp"

namespace ecocompute::report {
namespace {

bool matches(ValueType type, const Value& value) {
  switch (type) {
    case ValueType::text: return std::holds_alternative<std::string>(value);
    case ValueType::integer: return std::holds_alternative<std::int64_t>(value);
    case ValueType::real: return std::holds_alternative<double>(value);
    case ValueType::boolean: return std::holds_alternative<bool>(value);
    case ValueType::samples: return std::holds_alternative<std::vector<double>>(value);
  }
  return false;
}

}  // namespace

void Record::add(Column column, Value value) {
  ECO_CHECK(find(column.name) == nullptr, "duplicate record field " + column.name);
  ECO_CHECK(is_null(value) || matches(column.type, value), "record field " + column.name + " has the wrong type");
  fields_.push_back(Field{std::move(column), std::move(value)});
}

const Field* Record::find(std::string_view name) const {
  for (const Field& field : fields_) {
    if (field.column.name == name) return &field;
  }
  return nullptr;
}

std::optional<double> Record::number(std::string_view name) const {
  const Field* field = find(name);
  if (field == nullptr) return std::nullopt;
  if (const auto* i = std::get_if<std::int64_t>(&field->value)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&field->value)) return *d;
  return std::nullopt;
}

bool is_null(const Value& value) noexcept { return std::holds_alternative<std::monostate>(value); }

std::string format_value(const Value& value) {
  struct Visitor {
    std::string operator()(std::monostate) const { return ""; }
    std::string operator()(const std::string& s) const { return s; }
    std::string operator()(std::int64_t i) const { return fmt::format("{}", i); }
    std::string operator()(double d) const { return fmt::format("{}", d); }
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(const std::vector<double>& v) const { return fmt::format("{}", fmt::join(v, ";")); }
  };
  return std::visit(Visitor{}, value);
}

}  // namespace ecocompute::report
