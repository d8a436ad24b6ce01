// SqlPrinter: llama-bench's SQL layout (CREATE TABLE IF NOT EXISTS, one INSERT per row), typed columns.
#include <fmt/format.h>

#include "report/printer.hpp"

namespace ecocompute::report {
namespace {

constexpr std::string_view table_name = "ecocompute_bench";

std::string_view sql_type(ValueType type) {
  switch (type) {
    case ValueType::integer:
    case ValueType::boolean: return "INTEGER";
    case ValueType::real: return "REAL";
    case ValueType::text:
    case ValueType::samples: return "TEXT";
  }
  return "TEXT";
}

std::string sql_literal(const Value& value) {
  if (is_null(value)) return "NULL";
  if (const auto* b = std::get_if<bool>(&value)) return *b ? "1" : "0";
  if (const auto* s = std::get_if<std::string>(&value)) {
    std::string out = "'";
    for (char c : *s) {
      if (c == '\'') out += '\'';
      out += c;
    }
    return out + "'";
  }
  return format_value(value);
}

}  // namespace

void SqlPrinter::do_begin() {
  std::vector<std::string> lines;
  for (const Column& column : context().columns) {
    if (column.type == ValueType::samples) continue;
    lines.push_back(fmt::format("  {} {}", column.name, sql_type(column.type)));
  }
  out() << fmt::format("CREATE TABLE IF NOT EXISTS {} (\n{}\n);\n\n", table_name, fmt::join(lines, ",\n"));
}

void SqlPrinter::do_write(const Record& record) {
  std::vector<std::string> names;
  std::vector<std::string> values;
  for (const Field& field : record.fields()) {
    if (field.column.type == ValueType::samples) continue;
    names.push_back(field.column.name);
    values.push_back(sql_literal(field.value));
  }
  out() << fmt::format("INSERT INTO {} ({}) VALUES ({});\n", table_name, fmt::join(names, ", "),
                       fmt::join(values, ", "));
}

}  // namespace ecocompute::report
