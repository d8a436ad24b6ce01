// HttpRequest and HttpResponse: our own request and response types, so routes never see the HTTP library.
#pragma once

#include <map>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ecocompute::server {

/// One HTTP request as the routes see it; the adapter fills it from the library's request.
struct HttpRequest {
  std::string method = "GET";                   ///< upper case: GET, POST, OPTIONS, HEAD
  std::string path = "/";                       ///< decoded path without the query string
  std::map<std::string, std::string> query;     ///< decoded query parameters (last value wins)
  std::map<std::string, std::string> headers;   ///< header names in lower case
  std::string body;
  std::string client = "127.0.0.1";             ///< remote address; the rate limit's key
  /// The Content-Length the client declared, read before the body; nullopt when it sent none (or the
  /// request was built without a socket, where body.size() counts).
  std::optional<std::size_t> content_length;
  /// False when the request carried neither Content-Length nor Transfer-Encoding: it then has no body
  /// (RFC 9112 §6.3), and a POST without either is answered 411.
  bool framed = true;

  /// Returns a header's value; `name` is matched case-insensitively.
  [[nodiscard]] std::optional<std::string> header(std::string name) const;
  /// Returns a query parameter's value, if present.
  [[nodiscard]] std::optional<std::string> param(const std::string& name) const;
  /// Returns true when the Content-Type's media type (before any ";" parameter) is `media_type`,
  /// compared case-insensitively.
  [[nodiscard]] bool content_type_is(std::string_view media_type) const;
};

/// One HTTP response: status, headers and body.
struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;

  /// Returns a header's value (first match, case-insensitive), if set.
  [[nodiscard]] std::optional<std::string> header(std::string_view name) const;
  /// Sets a header, replacing an earlier value of the same name.
  void set_header(std::string name, std::string value);
};

/// Returns a JSON response with `status`; `body` is already serialized JSON.
HttpResponse json_response(int status, std::string body);

}  // namespace ecocompute::server
