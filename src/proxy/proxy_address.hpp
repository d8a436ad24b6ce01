// The proxy's two addresses: the upstream server's URL and the address it listens on.
#pragma once

#include <string>
#include <string_view>

#include "util/result.hpp"

namespace ecocompute::proxy {

/// An OpenAI-compatible server's base URL, split for the HTTP client.
struct UpstreamUrl {
  std::string scheme_host_port;  ///< "http://127.0.0.1:8080"
  std::string base_path;         ///< prefix put before every forwarded path, "" or "/prefix" (no trailing /)
  [[nodiscard]] std::string text() const { return scheme_host_port + base_path; }
};

/// Parses `--upstream`: http:// or https://, a host, an optional port 1-65535 and an optional path
/// prefix ("http://127.0.0.1:8080", "https://gpu-box/llm"). Errors (invalid_argument) name the value.
Result<UpstreamUrl> parse_upstream_url(std::string_view text);

/// Where the proxy listens.
struct ListenAddress {
  std::string host = "127.0.0.1";
  int port = 8090;  ///< 0: any free port
};

/// Parses `--listen`: "HOST:PORT", "[IPv6]:PORT" or ":PORT" (loopback). Errors name the value.
Result<ListenAddress> parse_listen_address(std::string_view text);

}  // namespace ecocompute::proxy
