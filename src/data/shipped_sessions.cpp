// Shipped sessions: the list in data/sessions/shipped.txt, imported report by report.
#include "data/shipped_sessions.hpp"

#include <algorithm>
#include <fstream>

#include "util/trim.hpp"

namespace ecocompute::data {

Result<std::vector<ImportBatch>> read_shipped_sessions(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::vector<ImportBatch> out;
  const fs::path list = dir / "shipped.txt";
  std::error_code ec;
  if (!fs::exists(list, ec)) return out;
  std::ifstream in(list);
  if (!in) return unexpected(ErrorCode::io, "cannot read " + list.string());
  RunSummaries runs;
  std::string line;
  while (std::getline(in, line)) {
    const std::string name = trimmed(line);
    if (name.empty() || name.front() == '#') continue;
    const fs::path folder = dir / name;
    if (!fs::is_directory(folder, ec)) {
      return unexpected(ErrorCode::invalid_input, list.string() + ": session folder " + folder.string() + " is missing");
    }
    std::vector<fs::path> reports;
    for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec)) {
      const std::string file = entry.path().filename().string();
      if (file.starts_with("energy-") && file.ends_with(".json")) reports.push_back(entry.path());
    }
    std::sort(reports.begin(), reports.end());
    for (const fs::path& report : reports) {
      auto batch = read_report_batch(report, runs);
      if (!batch) return Error{ErrorCode::invalid_input, "shipped session report " + report.string(), batch.error()};
      out.push_back(std::move(*batch));
    }
  }
  return out;
}

}  // namespace ecocompute::data
