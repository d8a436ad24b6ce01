// Quoting what a client sent inside an error message: at most a fixed number of bytes of it, so a
// 50 MB field is not echoed whole (into a response, a log line or a terminal).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ecocompute {

/// The most bytes of one input an error message quotes.
inline constexpr std::size_t max_quoted_input_bytes = 200;

/// Returns `text` in single quotes; when longer than `limit` bytes, its first `limit` bytes (cut at a
/// UTF-8 character boundary) followed by "…' (N bytes)".
[[nodiscard]] std::string quoted_input(std::string_view text, std::size_t limit = max_quoted_input_bytes);

/// Returns `text` itself when at most `limit` bytes, else its first `limit` bytes (at a UTF-8
/// character boundary) followed by "… (N bytes)": for messages that quote a value without quotes.
[[nodiscard]] std::string shortened_input(std::string_view text, std::size_t limit = max_quoted_input_bytes);

}  // namespace ecocompute
