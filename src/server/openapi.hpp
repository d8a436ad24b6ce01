// The OpenAPI document served at /openapi.json: the spec compiled into the binary, with the decision
// layer's defaults filled in from util/defaults.hpp, so the document states what the handlers do.
#pragma once

#include <string>

namespace ecocompute::server {

/// Returns the OpenAPI 3.1 document (built once; thread-safe).
[[nodiscard]] const std::string& openapi_document();

}  // namespace ecocompute::server
