// Our own measured sessions shipped with the tool: the ones data/sessions/shipped.txt lists are part of
// the default evidence, next to the published reference data.
#pragma once

#include <filesystem>
#include <vector>

#include "data/dataset_import.hpp"
#include "util/result.hpp"

namespace ecocompute::data {

/// The session folders `dir`/shipped.txt lists (one per line, relative to `dir`; blank lines and lines
/// starting with '#' ignored), in the list's order. No shipped.txt: none. A listed folder that is
/// missing is an error naming it.
Result<std::vector<std::filesystem::path>> shipped_session_folders(const std::filesystem::path& dir);

/// The reports of one session folder that are imported: its energy-*.json files, in name order.
std::vector<std::filesystem::path> session_report_files(const std::filesystem::path& folder);

/// Imports every report (session_report_files) of each folder shipped_session_folders lists. A report
/// that does not import (shipped data must be measurements) is an error naming it.
Result<std::vector<ImportBatch>> read_shipped_sessions(const std::filesystem::path& dir);

}  // namespace ecocompute::data
