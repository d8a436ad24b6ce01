// Shipped sessions: the list in data/sessions/shipped.txt, imported report by report.
#include "data/shipped_sessions.hpp"

#include <algorithm>
#include <fstream>

#include "util/trim.hpp"

namespace ecocompute::data {
namespace fs = std::filesystem;

Result<std::vector<fs::path>> shipped_session_folders(const fs::path& dir) {
  std::vector<fs::path> folders;
  const fs::path list = dir / "shipped.txt";
  std::error_code ec;
  if (!fs::exists(list, ec)) return folders;
  std::ifstream in(list);
  if (!in) return unexpected(ErrorCode::io, "cannot read " + list.string());
  std::string line;
  while (std::getline(in, line)) {
    const std::string name = trimmed(line);
    if (name.empty() || name.front() == '#') continue;
    const fs::path folder = dir / name;
    if (!fs::is_directory(folder, ec)) {
      return unexpected(ErrorCode::invalid_input, list.string() + ": session folder " + folder.string() + " is missing");
    }
    folders.push_back(folder);
  }
  return folders;
}

std::vector<fs::path> session_report_files(const fs::path& folder) {
  std::vector<fs::path> reports;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec)) {
    const std::string file = entry.path().filename().string();
    if (file.starts_with("energy-") && file.ends_with(".json")) reports.push_back(entry.path());
  }
  std::sort(reports.begin(), reports.end());
  return reports;
}

Result<std::vector<ImportBatch>> read_shipped_sessions(const fs::path& dir) {
  auto folders = shipped_session_folders(dir);
  if (!folders) return folders.error();
  std::vector<ImportBatch> out;
  RunSummaries runs;
  for (const fs::path& folder : *folders) {
    for (const fs::path& report : session_report_files(folder)) {
      auto batch = read_report_batch(report, runs);
      if (!batch) return Error{ErrorCode::invalid_input, "shipped session report " + report.string(), batch.error()};
      out.push_back(std::move(*batch));
    }
  }
  return out;
}

}  // namespace ecocompute::data
