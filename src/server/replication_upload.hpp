// Turning an uploaded energy.json into a graded NewReplication: schema validation, the basis checks
// the schema cannot express for 1.1 files, grading like `ecocompute check`, and the gallery columns.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "decide/evidence.hpp"
#include "server/replication_store.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::server {

/// Why an upload was refused: one message and, for schema failures, each problem as "pointer: message".
struct UploadRejection {
  std::string message;
  std::vector<std::string> problems;
};

/// The outcome of checking an upload: a row to store, or the reason to refuse it (answered 400).
struct CheckedUpload {
  std::optional<NewReplication> replication;
  std::optional<UploadRejection> rejection;
};

/// Largest energy.json the replications route accepts (bytes). Our own reports with per-trial windows
/// and power traces summarised stay well below it; the published 1.1 reports are ~2 KiB.
inline constexpr std::size_t max_upload_bytes = 256 * 1024;

/// Checks and grades an uploaded report against `evidence`. Refuses (never throws): text that is not
/// JSON or nested too deep, a schema violation, a source outside the closed list or a measured basis
/// that no energy source read, a stated ΔE its energies contradict (report::upload_rule_violation),
/// and a report the dataset reader cannot read. The row's digest is canonical_sha256(body).
CheckedUpload check_upload(std::string_view body, const decide::Evidence& evidence);

/// Returns the SHA-256 of the report's canonical JSON (keys sorted, compact, numbers re-printed), so
/// that copies differing only in layout or key order are one report.
[[nodiscard]] std::string canonical_sha256(std::string_view report_text);

/// Returns the gallery view of a stored row: its columns, its grade as JSON, and the report itself
/// when `with_report`.
Json replication_json(const Replication& replication, bool with_report);

}  // namespace ecocompute::server
