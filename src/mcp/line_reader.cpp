// Bounded line framing over a stream buffer.
#include "mcp/line_reader.hpp"

#include <istream>
#include <streambuf>

namespace ecocompute::mcp {

std::optional<FramedLine> LineReader::next() {
  std::streambuf* buffer = in_.rdbuf();
  if (buffer == nullptr) return std::nullopt;
  FramedLine line;
  bool any = false;
  for (int c = buffer->sbumpc(); c != std::char_traits<char>::eof(); c = buffer->sbumpc()) {
    any = true;
    if (c == '\n') break;
    ++line.bytes;
    if (line.too_long) continue;
    if (line.bytes > max_bytes_) {
      line.too_long = true;
      line.text.clear();
      line.text.shrink_to_fit();
      continue;
    }
    line.text += static_cast<char>(c);
  }
  if (!any) {
    in_.setstate(std::ios::eofbit);
    return std::nullopt;
  }
  if (!line.too_long && !line.text.empty() && line.text.back() == '\r') line.text.pop_back();
  return line;
}

}  // namespace ecocompute::mcp
