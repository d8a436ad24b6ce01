// CsvPrinter: llama-bench's CSV layout (header of names, every value quoted, quotes doubled).
#include <fmt/format.h>

#include "report/printer.hpp"

namespace ecocompute::report {
namespace {

std::string quote(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace

void CsvPrinter::do_begin() {
  std::string line;
  for (const Column& column : context().columns) {
    if (column.type == ValueType::samples) continue;
    if (!line.empty()) line += ',';
    line += column.name;
  }
  out() << line << '\n';
}

void CsvPrinter::do_write(const Record& record) {
  std::string line;
  bool first = true;
  for (const Field& field : record.fields()) {
    if (field.column.type == ValueType::samples) continue;
    if (!first) line += ',';
    first = false;
    line += quote(format_value(field.value));
  }
  out() << line << '\n';
}

}  // namespace ecocompute::report
