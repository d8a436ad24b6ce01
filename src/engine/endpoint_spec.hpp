// EndpointSpec: one OpenAI-compatible endpoint as the user names it, "LABEL=URL#MODEL".
#pragma once

#include <string>
#include <string_view>

#include "util/result.hpp"

namespace ecocompute::engine {

/// Where an endpoint is and what it serves. The label stands where a precision stands in a report
/// (it is the report's workload.precision), so it follows the precision spelling [A-Za-z0-9_]{1,32}.
struct EndpointSpec {
  std::string label;            ///< e.g. "F16", "Q4_K_M", "AWQ"
  std::string scheme_host_port; ///< "http://host:8080"
  std::string path_prefix;      ///< "/v1" (no trailing slash; may be empty)
  std::string model;            ///< the model name sent in every request

  /// Returns the base URL as given: scheme_host_port + path_prefix.
  [[nodiscard]] std::string base_url() const { return scheme_host_port + path_prefix; }
};

/// Parses "LABEL=http[s]://host[:port][/path]#MODEL", e.g. "Q4_K_M=http://127.0.0.1:8080/v1#qwen2".
/// A missing part, a label outside [A-Za-z0-9_]{1,32}, another scheme or an empty host is an
/// invalid_argument error quoting the text.
[[nodiscard]] Result<EndpointSpec> parse_endpoint_spec(std::string_view text);

}  // namespace ecocompute::engine
