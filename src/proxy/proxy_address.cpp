#include "proxy/proxy_address.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>

namespace ecocompute::proxy {

namespace {

bool valid_host(std::string_view host) {
  if (host.empty() || host.size() > 253) return false;
  if (host.front() == '[') return host.size() > 2 && host.back() == ']';
  return std::all_of(host.begin(), host.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '-' || c == '_';
  });
}

std::optional<int> parse_port(std::string_view text, int lowest) {
  int port = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (text.empty() || error != std::errc{} || end != text.data() + text.size() || port < lowest || port > 65535) {
    return std::nullopt;
  }
  return port;
}

Error bad_upstream(std::string_view text, const std::string& why) {
  return Error{ErrorCode::invalid_argument,
               "--upstream '" + std::string(text) + "' " + why + " (expected http://HOST[:PORT][/PREFIX], e.g. http://127.0.0.1:8080)"};
}

}  // namespace

Result<UpstreamUrl> parse_upstream_url(std::string_view text) {
  std::string_view rest = text;
  std::string scheme;
  if (rest.starts_with("http://")) {
    scheme = "http://";
  } else if (rest.starts_with("https://")) {
    scheme = "https://";
  } else {
    return bad_upstream(text, "is not an http:// or https:// URL");
  }
  rest.remove_prefix(scheme.size());
  const std::size_t slash = rest.find('/');
  const std::string_view authority = rest.substr(0, slash);
  std::string path(slash == std::string_view::npos ? std::string_view{} : rest.substr(slash));
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (path.find_first_of("?# ") != std::string::npos) return bad_upstream(text, "has a query, fragment or space");
  const std::size_t bracket = authority.rfind(']');
  const std::size_t colon = authority.rfind(':');
  const bool has_port = colon != std::string_view::npos && (bracket == std::string_view::npos || colon > bracket);
  const std::string_view host = has_port ? authority.substr(0, colon) : authority;
  if (!valid_host(host)) return bad_upstream(text, "has no valid host");
  if (has_port && !parse_port(authority.substr(colon + 1), 1)) return bad_upstream(text, "has a port outside 1-65535");
  return UpstreamUrl{scheme + std::string(authority), path};
}

Result<ListenAddress> parse_listen_address(std::string_view text) {
  const std::size_t colon = text.rfind(':');
  const auto bad = [&] {
    return Error{ErrorCode::invalid_argument,
                 "--listen '" + std::string(text) + "' is not HOST:PORT with a port 0-65535 (e.g. 127.0.0.1:8090)"};
  };
  if (colon == std::string_view::npos) return bad();
  auto port = parse_port(text.substr(colon + 1), 0);
  if (!port) return bad();
  std::string host(text.substr(0, colon));
  if (host.empty()) host = "127.0.0.1";
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  else if (!valid_host(host)) return bad();
  return ListenAddress{host, *port};
}

}  // namespace ecocompute::proxy
