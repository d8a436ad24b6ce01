// Readers that turn a source (the published reference CSVs, one of our energy.json reports) into an
// ImportBatch. They validate everything first: malformed files, unknown architectures, negative or
// NaN numbers are errors naming the file and line, and nothing is returned half-read.
#pragma once

#include <filesystem>
#include <string_view>

#include "data/data_row.hpp"
#include "report/energy_report.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::data {

/// Reads every published CSV in `dir` (see data/published/README.md). The site's fit input and the
/// curve parameters are not measurements of their own and are skipped (with a note); the 2026-08-20
/// repeats summary is skipped in favour of its replicate rows.
Result<ImportBatch> read_published_dir(const std::filesystem::path& dir);

/// Reads one published CSV file, recognised by its header.
Result<ImportBatch> read_published_csv(const std::filesystem::path& path);

/// Turns one report (1.0, 1.1 or 1.2) into its session and row; `source` names it in errors and is the
/// session's provenance. A baseline report records its session and no row.
Result<ImportBatch> import_energy_report(const report::EnergyReport& report, std::string_view source);

/// Reads one energy.json file and imports it.
Result<ImportBatch> read_report_batch(const std::filesystem::path& path);

/// Reads an energy.json document already parsed and imports it; `source` names it in errors.
Result<ImportBatch> parse_energy_report(const OrderedJson& document, std::string_view source);

/// Dispatches on the path: a folder → published CSVs; *.csv → one published CSV; else energy.json.
Result<ImportBatch> read_import_source(const std::filesystem::path& path);

}  // namespace ecocompute::data
