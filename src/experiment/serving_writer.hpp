// Where a serving sweep's files go: all of them into a staging folder, then into --out in one rename
// (run_folder.hpp), so a kill -9 while writing leaves the previous sweep's set or this one's, never a mix.
#pragma once

#include <filesystem>
#include <vector>

#include "experiment/run_folder.hpp"
#include "experiment/serving_report.hpp"
#include "util/result.hpp"

namespace ecocompute::experiment {

/// Writes everything into `out_dir`: the energy reports (validated), sweep.json, sweep.md, and
/// jtoken-vs-concurrency.gp plus its .svg when gnuplot runs (a warning otherwise). The files are staged
/// beside `out_dir` and put in place together; a previous sweep there is kept as <out>.previous-<n>.
/// Returns the files as they lie in `out_dir`. `step` sees each change on disk (tests stop there).
[[nodiscard]] Result<std::vector<std::filesystem::path>> write_serving_reports(
    const std::filesystem::path& out_dir, const protocol::SweepResult& sweep,
    const protocol::ServingAnalysis& analysis, const ServingContext& context, const RunFolderStep& step = {});

}  // namespace ecocompute::experiment
