// Markdown tables: split into trimmed cells line by line; the readers above give them meaning.
#include "data/markdown_table.hpp"

#include <charconv>
#include <cmath>

#include "util/trim.hpp"

namespace ecocompute::data {
namespace {

bool is_table_line(std::string_view line) {
  const std::string t = trimmed(line);
  return t.size() >= 2 && t.front() == '|' && t.back() == '|';
}

std::vector<std::string> split_cells(std::string_view line) {
  const std::string t = trimmed(line);
  std::vector<std::string> cells;
  std::size_t start = 1;  // after the leading '|'
  for (std::size_t i = 1; i < t.size(); ++i) {
    if (t[i] != '|') continue;
    cells.push_back(trimmed(std::string_view(t).substr(start, i - start)));
    start = i + 1;
  }
  return cells;
}

bool is_delimiter_row(const std::vector<std::string>& cells) {
  for (const std::string& c : cells) {
    if (c.empty() || c.find_first_not_of("-: ") != std::string::npos || c.find('-') == std::string::npos) return false;
  }
  return !cells.empty();
}

// "## LLaMA 3 8b Scoreboard" → "LLaMA 3 8b Scoreboard"; "<summary>Llama 2 70B Scoreboard</summary>" → the text.
std::optional<std::string> heading_of(std::string_view line) {
  const std::string t = trimmed(line);
  if (t.starts_with('#')) return trimmed(std::string_view(t).substr(t.find_first_not_of('#')));
  constexpr std::string_view open = "<summary>", close = "</summary>";
  if (t.starts_with(open) && t.ends_with(close)) {
    return trimmed(std::string_view(t).substr(open.size(), t.size() - open.size() - close.size()));
  }
  return std::nullopt;
}

std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    if (line.ends_with('\r')) line.remove_suffix(1);
    lines.push_back(line);
    start = end + 1;
  }
  return lines;
}

Error table_error(std::string_view file, std::size_t line, const std::string& what) {
  return Error{ErrorCode::invalid_input, std::string(file) + ":" + std::to_string(line) + ": " + what};
}

}  // namespace

Result<std::vector<MarkdownTable>> read_markdown_tables(std::string_view text, std::string_view file) {
  const std::vector<std::string_view> lines = lines_of(text);
  std::vector<MarkdownTable> tables;
  std::string heading, caption;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (auto h = heading_of(lines[i])) {
      heading = *h;
      caption.clear();
      continue;
    }
    if (!is_table_line(lines[i])) {
      caption += std::string(lines[i]) + "\n";
      continue;
    }
    MarkdownTable table{heading, caption, {static_cast<int>(i + 1), split_cells(lines[i])}, {}};
    if (i + 1 >= lines.size() || !is_table_line(lines[i + 1]) || !is_delimiter_row(split_cells(lines[i + 1]))) {
      return table_error(file, i + 2, "a table header without its delimiter row (|---|)");
    }
    if (split_cells(lines[i + 1]).size() != table.header.cells.size()) {
      return table_error(file, i + 2, "the delimiter row has a different number of cells than the header");
    }
    for (i += 2; i < lines.size() && is_table_line(lines[i]); ++i) {
      MarkdownRow row{static_cast<int>(i + 1), split_cells(lines[i])};
      if (row.cells.size() != table.header.cells.size()) {
        return table_error(file, i + 1, std::to_string(row.cells.size()) + " cells where the header has " +
                                            std::to_string(table.header.cells.size()));
      }
      table.rows.push_back(std::move(row));
    }
    --i;  // the line after the table is read by the loop again
    caption.clear();
    tables.push_back(std::move(table));
  }
  return tables;
}

std::optional<PrintedNumber> parse_printed_number(std::string_view cell) {
  auto number = [](std::string_view text) -> std::optional<double> {
    std::string t = trimmed(text);
    if (t.ends_with('%')) t = trimmed(std::string_view(t).substr(0, t.size() - 1));
    double v = 0;
    const char* end = t.data() + t.size();
    auto [ptr, ec] = std::from_chars(t.data(), end, v);
    if (t.empty() || ec != std::errc{} || ptr != end || !std::isfinite(v)) return std::nullopt;
    return v;
  };
  constexpr std::string_view plus_minus = "±";
  const std::size_t pm = cell.find(plus_minus);
  if (pm == std::string_view::npos) {
    auto v = number(cell);
    if (!v) return std::nullopt;
    return PrintedNumber{*v, std::nullopt};
  }
  auto v = number(cell.substr(0, pm));
  auto u = number(cell.substr(pm + plus_minus.size()));
  if (!v || !u || *u < 0) return std::nullopt;
  return PrintedNumber{*v, *u};
}

}  // namespace ecocompute::data
