#include "engine/endpoint_spec.hpp"

#include <algorithm>
#include <cctype>

namespace ecocompute::engine {
namespace {

bool is_label(std::string_view label) {
  return !label.empty() && label.size() <= 32 &&
         std::all_of(label.begin(), label.end(), [](unsigned char c) { return std::isalnum(c) || c == '_'; });
}

}  // namespace

Result<EndpointSpec> parse_endpoint_spec(std::string_view text) {
  auto bad = [&](const std::string& why) {
    return unexpected(ErrorCode::invalid_argument,
                      "--endpoint '" + std::string(text) + "': " + why + " (expected LABEL=http://host:port/v1#MODEL)");
  };
  const std::size_t equals = text.find('=');
  if (equals == std::string_view::npos) return bad("no '=' after the label");
  const std::string_view label = text.substr(0, equals);
  if (!is_label(label)) return bad("the label must be 1 to 32 letters, digits or '_'");
  std::string_view rest = text.substr(equals + 1);
  const std::size_t hash = rest.rfind('#');
  if (hash == std::string_view::npos || hash + 1 == rest.size()) return bad("no '#MODEL' after the URL");
  const std::string_view model = rest.substr(hash + 1);
  const std::string_view url = rest.substr(0, hash);
  std::string_view after_scheme;
  if (url.starts_with("http://")) {
    after_scheme = url.substr(7);
  } else if (url.starts_with("https://")) {
    after_scheme = url.substr(8);
  } else {
    return bad("the URL must start with http:// or https://");
  }
  const std::size_t slash = after_scheme.find('/');
  const std::string_view host_port = after_scheme.substr(0, slash);
  if (host_port.empty() || host_port.front() == ':') return bad("the URL has no host");
  if (host_port.find_first_of(" \t@?") != std::string_view::npos) return bad("the host is not a plain host[:port]");
  std::string path = slash == std::string_view::npos ? std::string() : std::string(after_scheme.substr(slash));
  while (!path.empty() && path.back() == '/') path.pop_back();
  EndpointSpec spec;
  spec.label = std::string(label);
  spec.scheme_host_port = std::string(url.substr(0, url.size() - after_scheme.size())) + std::string(host_port);
  spec.path_prefix = std::move(path);
  spec.model = std::string(model);
  return spec;
}

}  // namespace ecocompute::engine
