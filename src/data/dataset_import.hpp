// Readers that turn a source (the published reference CSVs, one of our energy.json reports) into an
// ImportBatch. They validate everything first: malformed files, unknown architectures, negative or
// NaN numbers are errors naming the file and line, and nothing is returned half-read.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string_view>

#include "data/data_row.hpp"
#include "report/energy_report.hpp"
#include "report/run_report.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::data {

/// The published CSV files of `dir` (every *.csv), in name order; none when the folder cannot be listed.
std::vector<std::filesystem::path> published_csv_files(const std::filesystem::path& dir);

/// Reads every published CSV in `dir` (see data/published/README.md). The site's fit input and the
/// curve parameters are not measurements of their own and are skipped (with a note); the 2026-08-20
/// repeats summary is skipped in favour of its replicate rows.
Result<ImportBatch> read_published_dir(const std::filesystem::path& dir);

/// Reads one published CSV file, recognised by its header.
Result<ImportBatch> read_published_csv(const std::filesystem::path& path);

/// Turns one report (1.0, 1.1 or 1.2) into its session and row; `source` names it in errors and is the
/// session's provenance. A baseline report records its session and no row. A report that is not a
/// measurement (report::why_not_measured: an estimate, no energy counter, values marked illustrative)
/// or not of a GPU is an invalid_input error saying why: the dataset stores measurements only.
Result<ImportBatch> import_energy_report(const report::EnergyReport& report, std::string_view source);

/// The context a report's rows carry (DataRow::context_tokens): its prompt length when beyond the
/// baseline context (defaults::baseline_context), else 0; an invalid_input error naming
/// workload.prompt_tokens when it is beyond the largest context stored (kMaxContext).
Result<int> stored_context(const report::Workload& workload);

/// Returns the session a report was measured in: keyed by its environment fingerprint (1.2), else by
/// a hash of its GPU, engine, software and date. `source` is the provenance.
Session report_session(const report::EnergyReport& report, std::string_view source);

/// Returns the report's engine name; a 1.0/1.1 report names none, and was measured with the published
/// stack (transformers+bitsandbytes).
std::string engine_name_of(const report::EnergyReport& report);

/// Returns whether the report is its run's baseline: its precision is the stated baseline, or, when
/// none is stated (1.0/1.1), a 16-bit baseline precision (FP16, F16, BF16).
bool is_baseline_report(const report::EnergyReport& report);

/// Returns the precision's canonical spelling ("q4_k_m" → "Q4_K_M"), or the text as given when unknown.
std::string canonical_precision(std::string_view precision);

/// The run summaries (run.json) that older reports are read beside, each file parsed once however
/// many reports of its folder ask for it.
class RunSummaries {
 public:
  /// Returns the run summary at `path`, or nullptr when it is absent or not a run summary.
  const report::RunReport* at(const std::filesystem::path& path);

 private:
  std::map<std::filesystem::path, std::optional<report::RunReport>> parsed_;
};

/// Reads one energy.json file and imports it. A report written before its "Throttled trials counted"
/// note existed gets the note from the run.json beside it, taken from `runs`.
Result<ImportBatch> read_report_batch(const std::filesystem::path& path, RunSummaries& runs);
/// The same with run summaries of its own (one report: nothing to share).
Result<ImportBatch> read_report_batch(const std::filesystem::path& path);

/// Reads an energy.json document already parsed and imports it; `source` names it in errors.
Result<ImportBatch> parse_energy_report(const OrderedJson& document, std::string_view source);

/// Dispatches on the path: a folder → published CSVs; *.csv → one published CSV; else energy.json
/// (read_report_batch with `runs`).
Result<ImportBatch> read_import_source(const std::filesystem::path& path, RunSummaries& runs);
/// The same with run summaries of its own.
Result<ImportBatch> read_import_source(const std::filesystem::path& path);

}  // namespace ecocompute::data
