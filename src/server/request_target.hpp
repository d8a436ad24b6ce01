// Request targets: the raw "/path?query" of a request line split and percent-decoded into the path
// and the query parameters the routes read.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace ecocompute::server {

/// A decoded request target.
struct RequestTarget {
  std::string path;                          ///< percent-decoded ("%2F" becomes "/"; "+" stays "+")
  std::map<std::string, std::string> query;  ///< decoded names and values ("+" is a space); the last value wins
};

/// Splits and decodes `raw`: origin form ("/a/b?x=1") or absolute form ("http://host/a?x=1", whose scheme
/// and authority are dropped). Decoded bytes are returned as they are; checking them is the router's job.
/// Errors (invalid_input): a target of another form, or a "%" not followed by two hex digits.
Result<RequestTarget> parse_request_target(std::string_view raw);

/// Percent-decodes `text`; `plus_is_space` for query names and values (HTML form encoding).
/// Error (invalid_input) on a "%" not followed by two hex digits; the message names `what`.
Result<std::string> percent_decode(std::string_view text, bool plus_is_space, std::string_view what);

}  // namespace ecocompute::server
