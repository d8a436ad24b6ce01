// CsvTable: a small RFC 4180 reader (quoted fields, "" escapes) for the published reference files,
// with typed field access whose errors name the file, line and column.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace ecocompute::data {

class CsvTable {
 public:
  /// Parses CSV text whose first line is the header; every row must have the header's width.
  static Result<CsvTable> parse(std::string_view text, std::string source);
  /// Reads and parses a file.
  static Result<CsvTable> read(const std::filesystem::path& path);

  [[nodiscard]] const std::vector<std::string>& header() const noexcept { return header_; }
  [[nodiscard]] std::size_t size() const noexcept { return rows_.size(); }
  [[nodiscard]] bool has_column(std::string_view name) const;
  [[nodiscard]] const std::string& source() const noexcept { return source_; }

  /// Returns a field as text; missing column is an error.
  [[nodiscard]] Result<std::string> text(std::size_t row, std::string_view column) const;
  /// Returns a field as a finite number; empty, non-numeric, NaN or infinite is an error.
  [[nodiscard]] Result<double> number(std::size_t row, std::string_view column) const;
  /// Returns a field as a finite number, or nullopt when the field is empty.
  [[nodiscard]] Result<std::optional<double>> optional_number(std::size_t row, std::string_view column) const;
  /// Returns "file:line" of a row (line 1 is the header).
  [[nodiscard]] std::string where(std::size_t row) const;

 private:
  std::string source_;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
  [[nodiscard]] Result<std::size_t> column(std::string_view name) const;
};

/// Returns the first error among several field reads (in argument order), or nullptr when all succeeded.
template <typename... Results>
const Error* first_field_error(const Results&... results) {
  const Error* found = nullptr;
  ((found = found != nullptr ? found : (results.has_value() ? nullptr : &results.error())), ...);
  return found;
}

}  // namespace ecocompute::data
