// Writing one run's reports: an energy-<condition>.json per condition (validated first) and run.json.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "experiment/report_context.hpp"
#include "experiment/run_folder.hpp"
#include "protocol/run_result.hpp"
#include "report/energy_report.hpp"
#include "report/run_report.hpp"
#include "util/result.hpp"

namespace ecocompute::experiment {

/// One condition's outcome of write_run_reports.
struct WrittenReport {
  std::size_t condition = 0;
  std::string label;                          ///< Condition::label()
  std::filesystem::path path;                 ///< empty when no report was written
  std::string failure;                        ///< why not (never loaded, invalid document); empty when written
  std::optional<report::EnergyReport> report; ///< the report as written
};

/// Returns the run summary: design, order and seed, every trial's status, the idle power, each
/// condition's report file (or why there is none) and headline figures, and the warnings.
[[nodiscard]] report::RunReport build_run_report(const protocol::RunResult& run, const ReportContext& context,
                                                 const std::vector<WrittenReport>& reports);

/// Makes sure the reports can be written to `out_dir` before anything is measured (begin_run_folder's
/// checks: created if missing, not a file, no folders of its own, it and its parent writable). Error
/// (invalid_argument, naming the folder) otherwise, so that no run's results are lost at its end.
[[nodiscard]] Result<void> prepare_out_dir(const std::filesystem::path& out_dir);

/// Builds, validates and writes energy-<label>.json for every condition, then run.json, into a staging
/// folder, and puts it in place as `out_dir` in one rename (run_folder.hpp): `out_dir` holds the previous
/// run's whole set or this run's, never a mix; the previous run is kept as <out>.previous-<n>. A
/// condition whose report cannot be built or validated is recorded in run.json with its reason and in
/// the returned list; the others are still written. Fails only when a file cannot be written. `step`
/// is called after each file written and each change of the commit (tests stop there).
[[nodiscard]] Result<std::vector<WrittenReport>> write_run_reports(const protocol::RunResult& run,
                                                                   const ReportContext& context,
                                                                   const std::filesystem::path& out_dir,
                                                                   const RunFolderStep& step = {});

}  // namespace ecocompute::experiment
