// MarkdownPrinter: llama-bench's human table; only key columns and columns that vary are shown.
#include <fmt/format.h>

#include <algorithm>

#include "report/printer.hpp"

namespace ecocompute::report {
namespace {

std::string cell(const Field& field) {
  if (is_null(field.value)) return "-";
  if (const auto* d = std::get_if<double>(&field.value); d != nullptr && field.column.decimals >= 0) {
    return fmt::format("{:.{}f}", *d, field.column.decimals);
  }
  return format_value(field.value);
}

bool is_numeric(ValueType type) { return type == ValueType::integer || type == ValueType::real; }

}  // namespace

void MarkdownPrinter::do_write(const Record& record) { rows_.push_back(record); }

void MarkdownPrinter::do_end() {
  const std::vector<Column>& columns = context().columns;
  std::vector<std::size_t> shown;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    if (columns[c].type == ValueType::samples) continue;
    bool varies = false;
    for (const Record& row : rows_) {
      varies = varies || format_value(row.fields()[c].value) != format_value(rows_.front().fields()[c].value);
    }
    if (columns[c].key || varies) shown.push_back(c);
  }

  std::vector<std::vector<std::string>> cells(rows_.size());
  std::vector<std::size_t> widths;
  for (std::size_t c : shown) {
    const Column& column = columns[c];
    std::size_t width = std::max<std::size_t>(3, (column.display.empty() ? column.name : column.display).size());
    for (std::size_t r = 0; r < rows_.size(); ++r) {
      cells[r].push_back(cell(rows_[r].fields()[c]));
      width = std::max(width, cells[r].back().size());
    }
    widths.push_back(width);
  }

  std::string header = "|";
  std::string rule = "|";
  for (std::size_t i = 0; i < shown.size(); ++i) {
    const Column& column = columns[shown[i]];
    const std::string& name = column.display.empty() ? column.name : column.display;
    const bool right = is_numeric(column.type);
    header += right ? fmt::format(" {:>{}} |", name, widths[i]) : fmt::format(" {:<{}} |", name, widths[i]);
    rule += " " + std::string(widths[i] - 1, '-') + (right ? ":" : "-") + " |";
  }
  out() << header << '\n' << rule << '\n';
  for (const auto& row : cells) {
    std::string line = "|";
    for (std::size_t i = 0; i < shown.size(); ++i) {
      const bool right = is_numeric(columns[shown[i]].type);
      line += right ? fmt::format(" {:>{}} |", row[i], widths[i]) : fmt::format(" {:<{}} |", row[i], widths[i]);
    }
    out() << line << '\n';
  }
  if (!context().build_commit.empty()) out() << "\nbuild: " << context().build_commit << '\n';
}

}  // namespace ecocompute::report
