// Router: dispatches an HttpRequest to a route and applies what every response shares — rate limit,
// body limit, CORS, security headers and the one error mapping. Testable without a socket.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "server/http_message.hpp"
#include "server/rate_limiter.hpp"
#include "util/result.hpp"

namespace ecocompute::server {

/// A route's function: a request in, a response or an Error out (mapped by api_error).
using Handler = std::function<Result<HttpResponse>(const HttpRequest&)>;

/// The published body limit of the API (DESIGN.md §5): 8 KiB.
inline constexpr std::size_t default_max_body_bytes = 8 * 1024;

/// What a route allows beyond its function.
struct RouteOptions {
  std::size_t max_body_bytes = default_max_body_bytes;  ///< larger bodies are answered 413
  bool cors = true;          ///< answer cross-origin callers (`Access-Control-Allow-Origin: *`)
  bool rate_limited = true;  ///< count against the client's rate limit
};

class Router {
 public:
  /// Constructs a router whose API routes share `limiter` (not owned; must outlive the router).
  explicit Router(RateLimiter& limiter) : limiter_(limiter) {}

  /// Registers `handler` for `method` (GET or POST) on the exact `path`. GET routes also answer HEAD.
  void add(std::string method, std::string path, Handler handler, RouteOptions options = {});

  /// Sets the function that answers GET requests no route matched (the static files); it returns a
  /// not_found Error for paths it does not serve.
  void set_fallback(Handler handler) { fallback_ = std::move(handler); }

  /// Answers one request. Never throws: an exception from a route becomes a 500.
  [[nodiscard]] HttpResponse handle(const HttpRequest& request) const;

  /// Returns the largest body any route accepts (the adapter refuses larger ones before reading them).
  [[nodiscard]] std::size_t max_body_bytes() const noexcept { return max_body_bytes_; }

 private:
  struct Route {
    Handler handler;
    RouteOptions options;
  };
  [[nodiscard]] HttpResponse dispatch(const HttpRequest& request) const;

  RateLimiter& limiter_;
  std::map<std::string, std::map<std::string, Route>> routes_;  // path → method → route
  Handler fallback_;
  std::size_t max_body_bytes_ = default_max_body_bytes;
};

/// Adds the security headers every response carries (nosniff, frame denial, CSP, referrer policy).
void add_security_headers(HttpResponse& response);

}  // namespace ecocompute::server
