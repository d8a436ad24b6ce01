// `sweep collect`: every finished report of a sweep (the journal's done jobs only), copied into one
// folder here; the command line imports them into a dataset store (the sweep reads no store).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "util/result.hpp"

namespace ecocompute::sweep {

/// One report file of a done job.
struct FinishedReport {
  std::string job;
  std::filesystem::path path;  ///< in the job's folder
  bool is_run_summary = false; ///< run.json (not an energy report)
};

/// Every report of every done job, in plan order.
Result<std::vector<FinishedReport>> finished_reports(const std::filesystem::path& sweep_dir);

/// Copies each into `out` as "<job id>.<file name>"; returns the count.
Result<std::size_t> collect_to_folder(const std::filesystem::path& sweep_dir, const std::filesystem::path& out);

}  // namespace ecocompute::sweep
