// Reading the done jobs' reports out of a sweep folder.
#include "sweep/collect.hpp"

#include <fmt/format.h>

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

}  // namespace ecocompute::sweep
