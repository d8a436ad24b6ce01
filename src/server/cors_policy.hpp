// CorsPolicy: which origins a browser lets read or write. Reads and computations that store nothing
// are open to any origin (the published API); writes are answered to other origins only when the
// deployment lists them (`serve --allow-origin`), so a page elsewhere cannot store rows.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "server/http_message.hpp"
#include "util/result.hpp"

namespace ecocompute::server {

/// Returns `text` as a browser serializes an Origin header ("https://example.org",
/// "http://localhost:8080"): scheme http or https, lower case, the default port and a trailing "/"
/// dropped. Error (invalid_argument) for anything else: "*", a bare host, a path, another scheme.
Result<std::string> parse_origin(std::string_view text);

class CorsPolicy {
 public:
  /// A policy that answers writes to no other origin.
  CorsPolicy() = default;
  /// A policy that also answers writes to each of `write_origins` (already parsed by parse_origin).
  explicit CorsPolicy(const std::vector<std::string>& write_origins);

  /// Returns true when a write from `request`'s Origin may be answered to that origin.
  [[nodiscard]] bool allows_write_from(const HttpRequest& request) const;

  /// Sets the Access-Control-Allow-Origin of a response to `request`: "*" on a read; the request's
  /// Origin on a write from an allowed origin; nothing on any other write.
  void apply(const HttpRequest& request, bool is_write, HttpResponse& response) const;

 private:
  std::set<std::string> write_origins_;
};

}  // namespace ecocompute::server
