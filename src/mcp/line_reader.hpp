// LineReader: the MCP stdio transport's framing — one message per line — read with a bound. A line
// past the bound is skipped as it is read (its bytes are counted, never kept), so a client sending a
// 200 MB line costs no more memory than one of max_bytes.
#pragma once

#include <cstddef>
#include <iosfwd>
#include <optional>
#include <string>

namespace ecocompute::mcp {

/// One line read: its text without the newline (and without a final '\r'), or, when it was longer
/// than the bound, no text and how many bytes it had.
struct FramedLine {
  std::string text;
  bool too_long = false;
  std::size_t bytes = 0;
};

class LineReader {
 public:
  /// Reads from `in` (not owned; must outlive the reader) lines of at most `max_bytes` bytes.
  LineReader(std::istream& in, std::size_t max_bytes) : in_(in), max_bytes_(max_bytes) {}

  /// Returns the next line, or nullopt at the end of input. A last line without a newline counts.
  [[nodiscard]] std::optional<FramedLine> next();

 private:
  std::istream& in_;
  std::size_t max_bytes_;
};

}  // namespace ecocompute::mcp
