// Origins allowed to read and to write.
#include "server/cors_policy.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

namespace ecocompute::server {

Result<std::string> parse_origin(std::string_view text) {
  std::string origin(text);
  std::transform(origin.begin(), origin.end(), origin.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (origin.ends_with('/')) origin.pop_back();
  const auto refuse = [&](std::string_view why) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("'{}' is not an origin ({}); write it as https://example.org", text, why));
  };
  std::string_view default_port;
  if (origin.starts_with("https://")) {
    default_port = ":443";
  } else if (origin.starts_with("http://")) {
    default_port = ":80";
  } else {
    return refuse("it needs the scheme http:// or https://");
  }
  const std::string_view authority = std::string_view(origin).substr(origin.find("://") + 3);
  if (authority.empty()) return refuse("it names no host");
  const bool clean = std::all_of(authority.begin(), authority.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == ':' || c == '[' || c == ']';
  });
  if (!clean) return refuse("an origin is a scheme, a host and a port, with no path, user or query");
  if (origin.ends_with(default_port)) origin.resize(origin.size() - default_port.size());
  return origin;
}

CorsPolicy::CorsPolicy(const std::vector<std::string>& write_origins)
    : write_origins_(write_origins.begin(), write_origins.end()) {}

bool CorsPolicy::allows_write_from(const HttpRequest& request) const {
  const auto origin = request.header("origin");
  return origin && write_origins_.contains(*origin);
}

void CorsPolicy::apply(const HttpRequest& request, bool is_write, HttpResponse& response) const {
  if (!is_write) {
    response.set_header("Access-Control-Allow-Origin", "*");
    return;
  }
  // The answer to a write depends on its Origin: caches must not hand one origin's answer to another.
  if (!write_origins_.empty()) response.set_header("Vary", "Origin");
  if (allows_write_from(request)) response.set_header("Access-Control-Allow-Origin", *request.header("origin"));
}

}  // namespace ecocompute::server
