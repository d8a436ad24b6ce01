// Offering a finished report to an `ecocompute serve` store: POST /v1/replications (the server
// validates, grades and stores it; docs/server.md).
#pragma once

#include <filesystem>
#include <string>

#include "util/result.hpp"

namespace ecocompute::sweep {

struct UploadAnswer {
  int http_status = 0;  ///< 201 stored, 200 already stored, 400 refused (message says why)
  std::string message;  ///< the server's "error", or the stored row's id
};

/// POSTs the report at `path` to `<base_url>/v1/replications` ("http://host:port", no trailing path).
/// Error{unavailable} when the server cannot be reached; a refusal is an answer, not an error.
Result<UploadAnswer> upload_report(const std::string& base_url, const std::filesystem::path& path);

}  // namespace ecocompute::sweep
