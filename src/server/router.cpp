// Route dispatch with the shared policies: rate limit, body limit, CORS, security headers, errors.
#include "server/router.hpp"

#include <algorithm>
#include <exception>

#include <fmt/format.h>

#include "server/api_error.hpp"
#include "util/log.hpp"

namespace ecocompute::server {

void Router::add(std::string method, std::string path, Handler handler, RouteOptions options) {
  max_body_bytes_ = std::max(max_body_bytes_, options.max_body_bytes);
  routes_[std::move(path)][std::move(method)] = Route{std::move(handler), options};
}

void add_security_headers(HttpResponse& response) {
  response.set_header("X-Content-Type-Options", "nosniff");
  response.set_header("X-Frame-Options", "DENY");
  response.set_header("Referrer-Policy", "no-referrer");
  response.set_header("Cross-Origin-Opener-Policy", "same-origin");
  // The page loads only its own scripts, styles and data; charts draw on a canvas, and the
  // share-link overlay arrives in the URL, never as markup.
  response.set_header("Content-Security-Policy",
                      "default-src 'self'; img-src 'self' data: blob:; style-src 'self'; "
                      "script-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
                      "frame-ancestors 'none'; form-action 'self'");
}

HttpResponse Router::handle(const HttpRequest& request) const {
  HttpResponse response;
  try {
    response = dispatch(request);
  } catch (const std::exception& e) {
    log::error("{} {} failed: {}", request.method, request.path, e.what());
    response = error_response(500, "internal error");
  }
  add_security_headers(response);
  return response;
}

HttpResponse Router::dispatch(const HttpRequest& request) const {
  const auto by_path = routes_.find(request.path);
  const bool is_head = request.method == "HEAD";
  const std::string method = is_head ? "GET" : request.method;

  if (request.method == "OPTIONS") {  // CORS preflight
    HttpResponse response;
    response.status = 204;
    response.content_type.clear();
    response.set_header("Access-Control-Allow-Origin", "*");
    response.set_header("Access-Control-Allow-Methods", "GET, POST, OPTIONS");
    response.set_header("Access-Control-Allow-Headers", "Content-Type");
    response.set_header("Access-Control-Max-Age", "86400");
    return response;
  }

  if (by_path == routes_.end()) {
    if (method == "GET" && fallback_) {
      Result<HttpResponse> result = fallback_(request);
      if (result) return std::move(result).value();
      return error_response(result.error());
    }
    return error_response(404, fmt::format("no such path: {}", request.path));
  }
  const auto route_it = by_path->second.find(method);
  if (route_it == by_path->second.end()) {
    std::string allow;
    for (const auto& [name, unused] : by_path->second) allow += (allow.empty() ? "" : ", ") + name;
    HttpResponse response =
        error_response(405, fmt::format("{} does not accept {} (allowed: {})", request.path, request.method, allow));
    response.set_header("Allow", allow);
    return response;
  }
  const Route& route = route_it->second;

  if (route.options.rate_limited) {
    if (const int retry_after_s = limiter_.acquire(request.client); retry_after_s > 0) {
      HttpResponse response = error_response(
          429, fmt::format("rate limit of {} requests per minute exceeded; retry after {} s",
                           limiter_.requests_per_minute(), retry_after_s));
      response.set_header("Retry-After", std::to_string(retry_after_s));
      if (route.options.cors) response.set_header("Access-Control-Allow-Origin", "*");
      return response;
    }
  }
  if (request.body.size() > route.options.max_body_bytes) {
    return error_response(413, fmt::format("request body of {} bytes exceeds the limit of {} bytes for {}",
                                           request.body.size(), route.options.max_body_bytes, request.path));
  }

  Result<HttpResponse> result = route.handler(request);
  HttpResponse response = result ? std::move(result).value() : error_response(result.error());
  if (route.options.cors || method == "GET") response.set_header("Access-Control-Allow-Origin", "*");
  if (is_head) response.body.clear();
  return response;
}

}  // namespace ecocompute::server
