// Error → HTTP status + {"error": …}.
#include "server/api_error.hpp"

#include "util/json.hpp"
#include "util/log.hpp"
#include "util/quoted_input.hpp"

namespace ecocompute::server {
namespace {

// The longest error text a response carries (the longest of ours, a list of every known precision, is
// under 1 KiB).
constexpr std::size_t kMaxErrorBytes = 2048;

// Messages may quote request input; the router refuses invalid UTF-8 first, and should any slip
// through, it is replaced rather than thrown on (a throw here once turned a 400 into a 500).
std::string error_text(const OrderedJson& body) { return body.dump(-1, ' ', false, OrderedJson::error_handler_t::replace); }

}  // namespace

int http_status_for(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::invalid_argument:
    case ErrorCode::invalid_input: return 400;
    case ErrorCode::not_found: return 404;
    case ErrorCode::conflict: return 409;
    case ErrorCode::unavailable: return 503;
    case ErrorCode::io:
    case ErrorCode::device:
    case ErrorCode::engine:
    case ErrorCode::measurement:
    case ErrorCode::cancelled:
    case ErrorCode::internal: return 500;
  }
  return 500;
}

HttpResponse error_response(const Error& error) {
  const int status = http_status_for(error.code());
  OrderedJson body;
  if (status >= 500) {
    // The detail of a server-side failure may name files or SQL; the client gets a generic line.
    log::error("request failed: {}", error.describe());
    body["error"] = status == 503 ? "service unavailable" : "internal error";
  } else {
    // Messages quote input at most max_quoted_input_bytes at a time; this bounds what several quotes add up to.
    body["error"] = shortened_input(error.describe(), kMaxErrorBytes);
  }
  body["code"] = std::string(to_string(error.code()));
  return json_response(status, error_text(body));
}

HttpResponse error_response(int status, std::string_view message) {
  OrderedJson body;
  body["error"] = shortened_input(message, kMaxErrorBytes);
  return json_response(status, error_text(body));
}

}  // namespace ecocompute::server
