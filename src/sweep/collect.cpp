// Reading the done jobs' reports out of a sweep folder.
#include "sweep/collect.hpp"

#include <fmt/format.h>

#include "data/dataset_import.hpp"
#include "data/dataset_store.hpp"
#include "sweep/sweep_status.hpp"

namespace ecocompute::sweep {

namespace fs = std::filesystem;

Result<std::vector<FinishedReport>> finished_reports(const fs::path& sweep_dir) {
  auto status = read_status(sweep_dir);
  if (!status) return status.error();
  std::vector<FinishedReport> out;
  for (const JobRow& row : status->jobs) {
    if (row.status.state != JobState::done) continue;
    for (const std::string& name : row.status.reports) {
      // Names come from the journal: a name that leaves the job folder is not ours to read.
      if (name.empty() || name.find('/') != std::string::npos || name == "..") {
        return unexpected(ErrorCode::invalid_input, fmt::format("{}: job {} lists a report name '{}' that is not a file name",
                                                                (sweep_dir / "journal.jsonl").string(), row.id, name));
      }
      out.push_back(FinishedReport{row.id, sweep_dir / "jobs" / row.id / name, name == "run.json"});
    }
  }
  return out;
}

Result<std::size_t> collect_to_folder(const fs::path& sweep_dir, const fs::path& out) {
  auto reports = finished_reports(sweep_dir);
  if (!reports) return reports.error();
  std::error_code ec;
  fs::create_directories(out, ec);
  if (ec) return unexpected(ErrorCode::invalid_argument, fmt::format("cannot create {}: {}", out.string(), ec.message()));
  for (const FinishedReport& report : *reports) {
    const fs::path target = out / (report.job + "." + report.path.filename().string());
    fs::copy_file(report.path, target, fs::copy_options::overwrite_existing, ec);
    if (ec) return unexpected(ErrorCode::io, fmt::format("cannot copy {} to {}: {}", report.path.string(), target.string(), ec.message()));
  }
  return reports->size();
}

Json to_json(const StoreCollection& c) {
  return Json{{"imported", c.imported}, {"rows_added", c.rows_added}, {"refused", c.refused}};
}

Result<StoreCollection> collect_to_store(const fs::path& sweep_dir, const std::string& location) {
  auto reports = finished_reports(sweep_dir);
  if (!reports) return reports.error();
  auto store = data::DatasetStore::open(location);
  if (!store) return store.error();
  StoreCollection collection;
  data::RunSummaries runs;  // the reports of one job share its run.json
  for (const FinishedReport& report : *reports) {
    if (report.is_run_summary) continue;
    auto batch = data::read_report_batch(report.path, runs);
    if (!batch) {
      if (batch.error().code() == ErrorCode::io) return batch.error();
      collection.refused.push_back(batch.error().describe());
      continue;
    }
    auto summary = store->import(*batch);
    if (!summary) return summary.error();
    ++collection.imported;
    collection.rows_added += static_cast<std::size_t>(summary->rows_added);
  }
  return collection;
}

}  // namespace ecocompute::sweep
