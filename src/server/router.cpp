// Route dispatch with the shared policies: refusals from the head, rate limit, CORS, security
// headers, errors.
#include "server/router.hpp"

#include <algorithm>
#include <cctype>
#include <exception>

#include <fmt/format.h>

#include "server/api_error.hpp"
#include "server/request_bytes.hpp"
#include "util/log.hpp"

namespace ecocompute::server {
namespace {

std::string trimmed_lower(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  text = text.substr(first, text.find_last_not_of(" \t") - first + 1);
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

HttpResponse method_not_allowed(const HttpRequest& request, const std::vector<std::string>& methods) {
  const std::string allow = joined(methods);
  HttpResponse response =
      error_response(405, fmt::format("{} does not accept {} (allowed: {})", request.path, request.method, allow));
  response.set_header("Allow", allow);
  return response;
}

}  // namespace

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

const Router::Route* Router::find(const std::string& path, const std::string& method) const {
  const auto by_path = routes_.find(path);
  if (by_path == routes_.end()) return nullptr;
  const auto route = by_path->second.find(method == "HEAD" ? "GET" : method);
  return route == by_path->second.end() ? nullptr : &route->second;
}

bool Router::is_expensive(const HttpRequest& request) const {
  const Route* route = find(request.path, request.method);
  return route != nullptr && route->options.expensive;
}

std::vector<std::string> Router::methods_of(const HttpRequest& request) const {
  std::vector<std::string> methods;
  if (const auto by_path = routes_.find(request.path); by_path != routes_.end()) {
    for (const char* method : {"GET", "POST"}) {
      if (!by_path->second.contains(method)) continue;
      methods.emplace_back(method);
      if (methods.back() == "GET") methods.emplace_back("HEAD");
    }
  } else if (fallback_) {
    HttpRequest probe = request;
    probe.method = "GET";
    probe.body.clear();
    if (fallback_(probe)) methods = {"GET", "HEAD"};
  }
  if (!methods.empty()) methods.emplace_back("OPTIONS");
  return methods;
}

std::optional<HttpResponse> Router::refusal(const HttpRequest& request) const {
  // Every byte that a route, an error message or a log line might echo is checked first.
  if (auto invalid = find_invalid_bytes(request)) return error_response(400, *invalid);

  // Only chunked framing is understood; guessing at another would misread where the body ends.
  if (const auto coding = request.header("transfer-encoding"); coding && trimmed_lower(*coding) != "chunked") {
    return error_response(501, fmt::format("Transfer-Encoding '{}' is not supported (only chunked)", *coding));
  }
  if (request.method == "OPTIONS") return std::nullopt;

  const Route* route = find(request.path, request.method);
  if (route == nullptr) {
    const bool read = request.method == "GET" || request.method == "HEAD";
    if (read && fallback_ && !routes_.contains(request.path)) return std::nullopt;  // a static file, or its 404
    const std::vector<std::string> methods = methods_of(request);
    if (methods.empty()) return error_response(404, fmt::format("no such path: {}", request.path));
    return method_not_allowed(request, methods);
  }

  // A POST that says neither how long its body is nor that it is chunked has no body (RFC 9112 §6.3);
  // every POST here takes one, so the client most likely forgot the header (RFC 9110 §8.6: SHOULD send it).
  if (request.method == "POST" && !request.framed) {
    return error_response(411, fmt::format("POST {} needs a Content-Length header (or Transfer-Encoding: chunked)",
                                           request.path));
  }
  const std::size_t body_bytes = std::max(request.content_length.value_or(0), request.body.size());
  if (body_bytes > route->options.max_body_bytes) {
    return error_response(413, fmt::format("request body of {} bytes exceeds the limit of {} bytes for {}", body_bytes,
                                           route->options.max_body_bytes, request.path));
  }
  if (const auto coding = request.header("content-encoding"); coding && trimmed_lower(*coding) != "identity") {
    return error_response(415, fmt::format("compressed request bodies (Content-Encoding: {}) are not accepted", *coding));
  }
  // A form or text/plain POST needs no CORS preflight; requiring JSON makes every cross-origin write
  // ask first, and the preflight is where other origins are refused.
  if (route->options.writes && !request.content_type_is("application/json")) {
    return error_response(415, fmt::format("{} {} takes a body of Content-Type: application/json", request.method,
                                           request.path));
  }
  return std::nullopt;
}

std::optional<HttpResponse> Router::refuse_before_body(const HttpRequest& head) const {
  std::optional<HttpResponse> refused;
  try {
    refused = refusal(head);
    // A page on another origin may read why its read was refused, as it may read the route's own
    // errors; a refused write stays closed like the write.
    const Route* route = find(head.path, head.method);
    if (refused) cors_.apply(head, route != nullptr && route->options.writes, *refused);
  } catch (const std::exception& e) {
    log::error("{} {} failed: {}", head.method, head.path, e.what());
    refused = error_response(500, "internal error");
  }
  if (refused) add_security_headers(*refused);
  return refused;
}

HttpResponse Router::handle(const HttpRequest& request) const {
  HttpResponse response;
  try {
    std::optional<HttpResponse> refused = refuse_before_body(request);
    response = refused ? std::move(*refused) : dispatch(request);
  } catch (const std::exception& e) {
    log::error("{} {} failed: {}", request.method, request.path, e.what());
    response = error_response(500, "internal error");
  } catch (...) {
    log::error("{} {} failed", request.method, request.path);
    response = error_response(500, "internal error");
  }
  add_security_headers(response);
  return response;
}

HttpResponse Router::options_response(const HttpRequest& request) const {
  const std::vector<std::string> methods = methods_of(request);
  if (methods.empty()) return error_response(404, fmt::format("no such path: {}", request.path));
  const auto origin = request.header("origin");
  const auto asked = request.header("access-control-request-method");
  HttpResponse response;
  response.status = 204;
  response.content_type.clear();
  if (!origin || !asked) {  // not a CORS preflight: say what the path answers
    response.set_header("Allow", joined(methods));
    return response;
  }
  // The methods this origin may use here: every read, and the writes only for listed origins.
  std::vector<std::string> open;
  for (const std::string& method : methods) {
    const Route* route = find(request.path, method);
    if (route == nullptr || !route->options.writes || cors_.allows_write_from(request)) open.push_back(method);
  }
  const bool any_write = std::any_of(methods.begin(), methods.end(), [&](const std::string& m) {
    const Route* route = find(request.path, m);
    return route != nullptr && route->options.writes;
  });
  if (std::find(open.begin(), open.end(), *asked) == open.end()) {
    response = error_response(403, fmt::format("cross-origin {} {} is not allowed from {}", *asked, request.path, *origin));
  } else {
    const Route* route = find(request.path, *asked);
    cors_.apply(request, route != nullptr && route->options.writes, response);
    response.set_header("Access-Control-Allow-Methods", joined(open));
    // Authorization carries an upload's write key (server/write_keys.hpp).
    response.set_header("Access-Control-Allow-Headers", "Content-Type, Authorization");
    response.set_header("Access-Control-Max-Age", "86400");
  }
  if (any_write) response.set_header("Vary", "Origin");
  return response;
}

namespace {
// A GET says how long it may be kept (the published service said nothing, so every client and proxy
// guessed); an error is never kept, so a corrected request is answered afresh.
void set_cache_control(const HttpRequest& request, const std::string& policy, HttpResponse& response) {
  if (request.method != "GET" && request.method != "HEAD") return;
  if (response.header("Cache-Control")) return;
  response.set_header("Cache-Control", response.status < 300 ? policy : "no-store");
}
}  // namespace

HttpResponse Router::dispatch(const HttpRequest& request) const {
  if (request.method == "OPTIONS") return options_response(request);

  const Route* route = find(request.path, request.method);
  if (route == nullptr) {  // refusal() let only GET and HEAD through here: the static files
    Result<HttpResponse> result = fallback_(request);
    HttpResponse response = result ? std::move(result).value() : error_response(result.error());
    set_cache_control(request, RouteOptions{}.cache_control, response);
    if (request.method == "HEAD") response.body.clear();
    return response;
  }

  if (route->options.rate_limited) {
    if (const int retry_after_s = limiter_.acquire(request.client); retry_after_s > 0) {
      HttpResponse response = error_response(
          429, fmt::format("rate limit of {} requests per minute exceeded; retry after {} s",
                           limiter_.requests_per_minute(), retry_after_s));
      response.set_header("Retry-After", std::to_string(retry_after_s));
      cors_.apply(request, route->options.writes, response);
      return response;
    }
  }

  Result<HttpResponse> result = route->handler(request);
  HttpResponse response = result ? std::move(result).value() : error_response(result.error());
  cors_.apply(request, route->options.writes, response);
  set_cache_control(request, route->options.cache_control, response);
  if (request.method == "HEAD") response.body.clear();
  return response;
}

}  // namespace ecocompute::server
