// The one mapping from an Error to an HTTP status and a JSON body {"error": …}.
#pragma once

#include <string_view>

#include "server/http_message.hpp"
#include "util/error.hpp"

namespace ecocompute::server {

/// Returns the HTTP status for an error code: bad input 400, not found 404, conflict 409,
/// environment unavailable 503, anything else 500.
int http_status_for(ErrorCode code) noexcept;

/// Returns a JSON error response {"error": message, "code": "<error code>"} with the mapped status.
/// Internal errors are answered with a generic message; their detail goes to the log only.
HttpResponse error_response(const Error& error);

/// Returns a JSON error response {"error": message} with an explicit status (413, 429, 405 …).
HttpResponse error_response(int status, std::string_view message);

}  // namespace ecocompute::server
