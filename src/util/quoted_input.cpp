// Bounded quoting of input in messages.
#include "util/quoted_input.hpp"

#include <fmt/format.h>

namespace ecocompute {
namespace {

// The longest prefix of at most `limit` bytes that does not end inside a UTF-8 character.
std::string_view prefix(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return text;
  std::size_t end = limit;
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  return text.substr(0, end);
}

}  // namespace

std::string quoted_input(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return fmt::format("'{}'", text);
  return fmt::format("'{}…' ({} bytes)", prefix(text, limit), text.size());
}

std::string shortened_input(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return std::string(text);
  return fmt::format("{}… ({} bytes)", prefix(text, limit), text.size());
}

}  // namespace ecocompute
