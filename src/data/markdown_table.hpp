// Markdown tables as documentation prints them: a header row, a delimiter row (|---|:--|) and body rows,
// each cell trimmed, each row with its 1-based line number so a reader's error can name the line. The
// heading above a table (a '#' heading or a <summary> of a <details> block) names it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace ecocompute::data {

struct MarkdownRow {
  int line = 0;
  std::vector<std::string> cells;
};

struct MarkdownTable {
  std::string heading;  ///< the nearest heading above, without '#' or <summary> tags
  std::string caption;  ///< the prose between the heading and the table (for what a table does not say)
  MarkdownRow header;
  std::vector<MarkdownRow> rows;
};

/// Returns every table of a markdown text, in order. A table whose delimiter row is missing or whose row
/// has a different number of cells than its header is an invalid_input error naming `file` and the line.
Result<std::vector<MarkdownTable>> read_markdown_tables(std::string_view text, std::string_view file);

/// A number as a documentation table prints it: "6.233160 ±   0.037828", "-0.019 ± 0.003 %", "3.61%",
/// "99.34%". A percent sign is dropped (the column says the unit).
struct PrintedNumber {
  double value = 0.0;
  std::optional<double> uncertainty;
};

/// Parses a printed number; absent when the cell is not one (the caller names file and line).
std::optional<PrintedNumber> parse_printed_number(std::string_view cell);

}  // namespace ecocompute::data
