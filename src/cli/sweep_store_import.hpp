// `sweep collect --store`: the finished energy reports of a sweep folder imported into a dataset store
// through the same reader as `ecocompute data import`. Here, not in the sweep module: a sweep runs
// measurements and reads no dataset (docs/architecture.md).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::cli {

struct StoreCollection {
  std::size_t imported = 0;
  std::size_t rows_added = 0;
  std::vector<std::string> refused;  ///< "<file>: <reason>" (the store keeps measurements only)
};
Json to_json(const StoreCollection& collection);

/// Imports each energy report of the done jobs into the store at `location` (SQLite file or
/// postgresql:// URL), one transaction each. A report the dataset reader refuses (not a measurement,
/// an architecture it does not know) is listed with its reason; only a file that cannot be read is an
/// error.
Result<StoreCollection> import_sweep_reports(const std::filesystem::path& sweep_dir, const std::string& location);

}  // namespace ecocompute::cli
