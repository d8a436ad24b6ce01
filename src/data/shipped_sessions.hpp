// Our own measured sessions shipped with the tool: the ones data/sessions/shipped.txt lists are part of
// the default evidence, next to the published reference data.
#pragma once

#include <filesystem>
#include <vector>

#include "data/dataset_import.hpp"
#include "util/result.hpp"

namespace ecocompute::data {

/// Reads `dir`/shipped.txt (one session folder per line, relative to `dir`; blank lines and lines
/// starting with '#' ignored) and imports every energy-*.json of each listed folder, in name order.
/// No shipped.txt: no sessions. A listed folder that is missing, or a report that does not import
/// (shipped data must be measurements), is an error naming it.
Result<std::vector<ImportBatch>> read_shipped_sessions(const std::filesystem::path& dir);

}  // namespace ecocompute::data
