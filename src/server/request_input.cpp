// Request input: JSON body or query parameters.
#include "server/request_input.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "util/text_list.hpp"

namespace ecocompute::server {
namespace {

// A query value as JSON: an integer, a finite number, or the text itself.
Json scalar_from_text(const std::string& text) {
  const char* first = text.data();
  const char* last = text.data() + text.size();
  long long integer = 0;
  if (auto [end, ec] = std::from_chars(first, last, integer); ec == std::errc{} && end == last && !text.empty()) {
    return integer;
  }
  double number = 0;
  if (auto [end, ec] = std::from_chars(first, last, number); ec == std::errc{} && end == last && !text.empty() &&
                                                             std::isfinite(number)) {
    return number;
  }
  return text;
}

}  // namespace

int json_nesting_depth(std::string_view text) noexcept {
  int depth = 0;
  int deepest = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return deepest;
}

Result<Json> request_input(const HttpRequest& request, const std::set<std::string>& list_fields, int max_depth) {
  if (request.method == "POST") {
    if (request.body.find_first_not_of(" \t\r\n") == std::string::npos) return Json::object();
    if (const int depth = json_nesting_depth(request.body); depth > max_depth) {
      return unexpected(ErrorCode::invalid_input,
                        fmt::format("request body is nested {} levels deep (at most {} allowed)", depth, max_depth));
    }
    // The parser takes a NUL byte for the end of input and would ignore what follows it.
    if (const auto nul = request.body.find('\0'); nul != std::string::npos) {
      return unexpected(ErrorCode::invalid_input,
                        fmt::format("request body is not valid JSON (a NUL byte at offset {})", nul));
    }
    Json body = Json::parse(request.body, nullptr, /*allow_exceptions=*/false);
    if (body.is_discarded()) return unexpected(ErrorCode::invalid_input, "request body is not valid JSON");
    if (!body.is_object()) return unexpected(ErrorCode::invalid_input, "request body must be a JSON object");
    return body;
  }
  Json input = Json::object();
  for (const auto& [key, value] : request.query) {
    if (list_fields.contains(key)) {
      Json list = Json::array();
      for (const std::string& item : split_commas(value)) {
        if (!item.empty()) list.push_back(scalar_from_text(item));
      }
      input[key] = std::move(list);
    } else {
      input[key] = scalar_from_text(value);
    }
  }
  return input;
}

}  // namespace ecocompute::server
