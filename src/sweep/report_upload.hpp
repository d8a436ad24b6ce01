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

/// POSTs the report at `path` to `<base_url>/v1/replications` ("http://host:port", no trailing path),
/// with `Authorization: Bearer <key>` when `key` is not empty (a server started with --write-keys asks for
/// one). Error{unavailable} when the server cannot be reached; a refusal (401 included) is an answer.
Result<UploadAnswer> upload_report(const std::string& base_url, const std::filesystem::path& path,
                                   const std::string& key = "");

/// Reads a write key from `path`: its first line, surrounding blanks removed (the key is kept out of
/// command lines, which other users of the machine can read). Error{invalid_input} naming the file when
/// it cannot be read or holds no key.
Result<std::string> read_write_key(const std::filesystem::path& path);

}  // namespace ecocompute::sweep
