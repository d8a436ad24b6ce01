// UTF-8 and control-character checks of a request.
#include "server/request_bytes.hpp"

#include <fmt/format.h>

namespace ecocompute::server {
namespace {

bool has_control_character(std::string_view text, bool tab_allowed) noexcept {
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && !(tab_allowed && byte == '\t')) || byte == 0x7f) return true;
  }
  return false;
}

bool is_clean_text(std::string_view text, bool tab_allowed) noexcept {
  return is_valid_utf8(text) && !has_control_character(text, tab_allowed);
}

}  // namespace

bool is_valid_utf8(std::string_view text) noexcept {
  std::size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    // The range of the second byte narrows for E0, ED, F0 and F4 (Unicode table 3-7): that is what
    // excludes overlong forms, surrogates and code points above U+10FFFF.
    std::size_t length = 0;
    unsigned char second_min = 0x80;
    unsigned char second_max = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) {
      length = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      if (lead == 0xe0) second_min = 0xa0;
      if (lead == 0xed) second_max = 0x9f;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      if (lead == 0xf0) second_min = 0x90;
      if (lead == 0xf4) second_max = 0x8f;
    } else {
      return false;
    }
    if (i + length > text.size()) return false;
    const auto second = static_cast<unsigned char>(text[i + 1]);
    if (second < second_min || second > second_max) return false;
    for (std::size_t k = 2; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if (next < 0x80 || next > 0xbf) return false;
    }
    i += length;
  }
  return true;
}

std::optional<std::string> find_invalid_bytes(const HttpRequest& request) {
  if (!is_clean_text(request.path, false)) return "the path is not valid UTF-8 text";
  for (const auto& [name, value] : request.query) {
    if (!is_clean_text(name, false)) return "a query parameter's name is not valid UTF-8 text";
    if (!is_clean_text(value, false)) {
      return fmt::format("query parameter '{}' is not valid UTF-8 text", name);
    }
  }
  for (const auto& [name, value] : request.headers) {
    if (!is_clean_text(name, false)) return "a header name is not valid UTF-8 text";
    if (!is_clean_text(value, true)) return fmt::format("header '{}' is not valid UTF-8 text", name);
  }
  if (!is_valid_utf8(request.body)) return "the request body is not valid UTF-8";
  return std::nullopt;
}

}  // namespace ecocompute::server
