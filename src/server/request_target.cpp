// Splitting and percent-decoding request targets.
#include "server/request_target.hpp"

#include <fmt/format.h>

namespace ecocompute::server {
namespace {

int hex_value(char c) noexcept {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

struct SplitTarget {
  std::string_view path;
  std::string_view query;
};

// Splits a target into path and query. Origin form ("/a?x") is taken as it is; absolute form
// ("http://host/a?x", which a server must accept, RFC 9112 §3.2.2) loses its scheme and authority.
Result<SplitTarget> split(std::string_view raw) {
  std::string_view rest = raw;
  bool absolute = false;
  if (!raw.starts_with('/') && raw != "*") {
    const std::size_t scheme_end = raw.find("://");
    if (scheme_end == std::string_view::npos) {
      return unexpected(ErrorCode::invalid_input, "the request target must start with '/'");
    }
    const std::size_t path_start = raw.find_first_of("/?", scheme_end + 3);
    rest = path_start == std::string_view::npos ? std::string_view{} : raw.substr(path_start);
    absolute = true;
  }
  SplitTarget out;
  const std::size_t question = rest.find('?');
  out.path = rest.substr(0, question);
  if (out.path.empty() && absolute) out.path = "/";
  if (question != std::string_view::npos) {
    out.query = rest.substr(question + 1);
  }
  return out;
}

}  // namespace

Result<std::string> percent_decode(std::string_view text, bool plus_is_space, std::string_view what) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      const int high = i + 1 < text.size() ? hex_value(text[i + 1]) : -1;
      const int low = i + 2 < text.size() ? hex_value(text[i + 2]) : -1;
      if (high < 0 || low < 0) {
        return unexpected(ErrorCode::invalid_input,
                          fmt::format("{} has a '%' that is not followed by two hex digits", what));
      }
      out.push_back(static_cast<char>(high * 16 + low));
      i += 2;
    } else if (c == '+' && plus_is_space) {
      out.push_back(' ');
    } else {
      out.push_back(c);
    }
  }
  return out;
}

Result<RequestTarget> parse_request_target(std::string_view raw) {
  auto parts = split(raw);
  if (!parts) return parts.error();
  RequestTarget out;
  auto path = percent_decode(parts->path, false, "the path");
  if (!path) return path.error();
  out.path = std::move(path).value();

  // Names and values are decoded as they are; the error names no raw bytes, which may be invalid.
  std::string_view query = parts->query;
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (pair.empty()) continue;
    const std::size_t equals = pair.find('=');
    auto name = percent_decode(pair.substr(0, equals), true, "the query string");
    if (!name) return name.error();
    auto value = percent_decode(equals == std::string_view::npos ? std::string_view{} : pair.substr(equals + 1), true,
                                "the query string");
    if (!value) return value.error();
    out.query[std::move(name).value()] = std::move(value).value();
  }
  return out;
}

}  // namespace ecocompute::server
