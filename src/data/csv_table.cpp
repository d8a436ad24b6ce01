// CsvTable: parsing and typed access.
#include "data/csv_table.hpp"

#include <charconv>
#include <cmath>

#include "util/file_io.hpp"

namespace ecocompute::data {

Result<CsvTable> CsvTable::parse(std::string_view text, std::string source) {
  std::vector<std::vector<std::string>> records;
  std::vector<std::string> record;
  std::string field;
  bool quoted = false;
  bool field_started = false;
  std::size_t line = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    if (c == '"' && field.empty()) {
      quoted = true;
      field_started = true;
    } else if (c == ',') {
      record.push_back(std::move(field));
      field.clear();
      field_started = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (field_started || !field.empty() || !record.empty()) {
        record.push_back(std::move(field));
        records.push_back(std::move(record));
      }
      record.clear();
      field.clear();
      field_started = false;
      ++line;
    } else {
      field += c;
      field_started = true;
    }
  }
  if (quoted) return unexpected(ErrorCode::invalid_input, source + ":" + std::to_string(line) + ": unterminated quote");
  if (field_started || !field.empty() || !record.empty()) {
    record.push_back(std::move(field));
    records.push_back(std::move(record));
  }
  if (records.empty()) return unexpected(ErrorCode::invalid_input, source + ": empty CSV file (no header)");
  CsvTable table;
  table.source_ = std::move(source);
  table.header_ = std::move(records.front());
  for (std::size_t r = 1; r < records.size(); ++r) {
    if (records[r].size() != table.header_.size()) {
      return unexpected(ErrorCode::invalid_input,
                        table.source_ + ":" + std::to_string(r + 1) + ": " + std::to_string(records[r].size()) +
                            " fields, the header has " + std::to_string(table.header_.size()));
    }
    table.rows_.push_back(std::move(records[r]));
  }
  return table;
}

Result<CsvTable> CsvTable::read(const std::filesystem::path& path) {
  auto text = read_file(path);
  if (!text) return text.error();
  return parse(*text, path.string());
}

bool CsvTable::has_column(std::string_view name) const { return column(name).has_value(); }

Result<std::size_t> CsvTable::column(std::string_view name) const {
  for (std::size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return i;
  }
  return unexpected(ErrorCode::invalid_input, source_ + ": no column '" + std::string(name) + "'");
}

std::string CsvTable::where(std::size_t row) const { return source_ + ":" + std::to_string(row + 2); }

Result<std::string> CsvTable::text(std::size_t row, std::string_view name) const {
  auto c = column(name);
  if (!c) return c.error();
  return rows_.at(row).at(*c);
}

Result<std::optional<double>> CsvTable::optional_number(std::size_t row, std::string_view name) const {
  auto t = text(row, name);
  if (!t) return t.error();
  if (t->empty()) return std::optional<double>{};
  double value = 0;
  const char* begin = t->data();
  const char* end = begin + t->size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc{} || ptr != end || !std::isfinite(value)) {
    return unexpected(ErrorCode::invalid_input,
                      where(row) + ": column '" + std::string(name) + "': '" + *t + "' is not a finite number");
  }
  return std::optional<double>{value};
}

Result<double> CsvTable::number(std::size_t row, std::string_view name) const {
  auto v = optional_number(row, name);
  if (!v) return v.error();
  if (!*v) return unexpected(ErrorCode::invalid_input, where(row) + ": column '" + std::string(name) + "' is empty");
  return **v;
}

}  // namespace ecocompute::data
