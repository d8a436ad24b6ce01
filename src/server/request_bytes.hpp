// Checking the bytes of a request before any route reads them: text must be UTF-8 without control
// characters, so that an error message echoing it is always valid JSON (an invalid byte once made the
// JSON dump of an echoed parameter throw, answered 500).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "server/http_message.hpp"

namespace ecocompute::server {

/// Returns true when `text` is well-formed UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF).
bool is_valid_utf8(std::string_view text) noexcept;

/// Returns why `request` is refused for its bytes, naming the place but never echoing the bytes: the
/// path, a query name or value, or a header value that is not UTF-8 or holds a control character
/// (a tab is allowed in headers), or a body that is not UTF-8. nullopt when every byte is acceptable.
std::optional<std::string> find_invalid_bytes(const HttpRequest& request);

}  // namespace ecocompute::server
