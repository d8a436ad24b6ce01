// Router: dispatches an HttpRequest to a route and applies what every response shares — the refusals
// a request's head decides (invalid bytes, no such method, no length, too large, wrong media type),
// rate limit, CORS, security headers and the one error mapping. Testable without a socket.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "server/cors_policy.hpp"
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
  /// The route stores something: it takes only Content-Type: application/json (415 otherwise), and
  /// other origins get no CORS answer unless the CorsPolicy lists them. Reads and computations that
  /// store nothing are open to any origin (`Access-Control-Allow-Origin: *`).
  bool writes = false;
  bool rate_limited = true;  ///< count against the client's rate limit
  /// Cache-Control of a successful GET: answers computed from the evidence loaded at start may be
  /// kept a while; lists that uploads change must be revalidated.
  std::string cache_control = "public, max-age=300";
  /// The route's work grows with the request (a grid to search, a report to grade): HttpServer runs it
  /// on its bounded WorkPool, never on the event loop's threads.
  bool expensive = false;
};

class Router {
 public:
  /// Constructs a router whose API routes share `limiter` (not owned; must outlive the router);
  /// `cors` says which other origins may write.
  explicit Router(RateLimiter& limiter, CorsPolicy cors = {}) : limiter_(limiter), cors_(std::move(cors)) {}

  /// Registers `handler` for `method` (GET or POST) on the exact `path`. GET routes also answer HEAD.
  void add(std::string method, std::string path, Handler handler, RouteOptions options = {});

  /// Sets the function that answers GET requests no route matched (the static files); it returns a
  /// not_found Error for paths it does not serve.
  void set_fallback(Handler handler) { fallback_ = std::move(handler); }

  /// Returns the answer to a request that its head alone refuses — 400 invalid bytes, 404, 405 with
  /// Allow, 411, 413 from Content-Length, 415, 501 — or nullopt when its body should be read. The
  /// adapter asks before reading a body; handle() asks again with the body. Refused reads carry
  /// `Access-Control-Allow-Origin: *` like the reads' own errors; refused writes do not.
  [[nodiscard]] std::optional<HttpResponse> refuse_before_body(const HttpRequest& head) const;

  /// Answers one request. Never throws: an exception from a route becomes a 500.
  [[nodiscard]] HttpResponse handle(const HttpRequest& request) const;

  /// Returns whether the request goes to an expensive route (RouteOptions::expensive).
  [[nodiscard]] bool is_expensive(const HttpRequest& request) const;

  /// Returns the largest body any route accepts (the adapter stops reading a chunked body past it).
  [[nodiscard]] std::size_t max_body_bytes() const noexcept { return max_body_bytes_; }

 private:
  struct Route {
    Handler handler;
    RouteOptions options;
  };
  [[nodiscard]] std::optional<HttpResponse> refusal(const HttpRequest& request) const;
  [[nodiscard]] HttpResponse dispatch(const HttpRequest& request) const;
  [[nodiscard]] HttpResponse options_response(const HttpRequest& request) const;
  // The route for `method` (HEAD as GET) on the request's path, if any.
  [[nodiscard]] const Route* find(const std::string& path, const std::string& method) const;
  // The methods `path` answers ("GET", "HEAD", "POST", "OPTIONS"); empty for a path nothing serves.
  [[nodiscard]] std::vector<std::string> methods_of(const HttpRequest& request) const;

  RateLimiter& limiter_;
  CorsPolicy cors_;
  std::map<std::string, std::map<std::string, Route>> routes_;  // path → method → route
  Handler fallback_;
  std::size_t max_body_bytes_ = default_max_body_bytes;
};

/// Adds the security headers every response carries (nosniff, frame denial, CSP, referrer policy).
void add_security_headers(HttpResponse& response);

}  // namespace ecocompute::server
