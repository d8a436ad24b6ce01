// `sweep collect`: every finished report of a sweep (the journal's done jobs only) copied into one
// folder, or imported into a dataset store through the same reader as `ecocompute data import`.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "util/json.hpp"
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

struct StoreCollection {
  std::size_t imported = 0;
  std::size_t rows_added = 0;
  std::vector<std::string> refused;  ///< "<file>: <reason>" (the store keeps measurements only)
};
Json to_json(const StoreCollection& collection);

/// Imports each energy report into the store at `location` (SQLite file or postgresql:// URL), one
/// transaction each. A report the dataset reader refuses (not a measurement, an architecture it does
/// not know) is listed with its reason; only a file that cannot be read is an error.
Result<StoreCollection> collect_to_store(const std::filesystem::path& sweep_dir, const std::string& location);

}  // namespace ecocompute::sweep
