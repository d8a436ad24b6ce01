// The input of a GET|POST route as one JSON object: a POST's JSON body, or a GET's query parameters
// with numbers as numbers and comma-separated lists as arrays.
#pragma once

#include <set>
#include <string>

#include "server/http_message.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::server {

/// Returns the request's input: for POST the body (empty body → {}), which must be a JSON object of
/// at most `max_depth` levels; for GET the query parameters, where a value that is entirely a finite
/// number becomes a number and the parameters named in `list_fields` become arrays (split on ',').
/// Errors are invalid_input naming the body or the parameter.
Result<Json> request_input(const HttpRequest& request, const std::set<std::string>& list_fields = {},
                           int max_depth = 8);

/// Returns the nesting depth of JSON text (brackets outside strings) without parsing it, so hostile
/// input can be refused before a recursive parser or validator sees it.
int json_nesting_depth(std::string_view text) noexcept;

}  // namespace ecocompute::server
