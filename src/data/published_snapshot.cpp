// The digest of the published store's inputs and the place of its copy (see published_snapshot.hpp).
#include "data/published_snapshot.hpp"

#include <vector>

#include "data/dataset_import.hpp"
#include "data/shipped_sessions.hpp"
#include "ecocompute/build_info.hpp"
#include "util/file_io.hpp"

namespace ecocompute::data {
namespace fs = std::filesystem;
namespace {

// Bumped when what the copy holds changes shape without a new commit (a build from a changed tree).
constexpr const char* kSnapshotFormat = "published store copy 1";

// One line per file: its path below the data folder and the sha256 of its bytes.
Result<void> add_file(std::string& lines, const fs::path& data_dir, const fs::path& file) {
  auto digest = sha256_file(file);
  if (!digest) return digest.error();
  lines += file.lexically_relative(data_dir).generic_string();
  lines += ' ';
  lines += *digest;
  lines += '\n';
  return {};
}

// The running executable, so that two builds of one commit (a tree with uncommitted changes) never read
// each other's copy.
std::string executable_identity() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "unknown executable";
  const auto size = fs::file_size(self, ec);
  const auto time = fs::last_write_time(self, ec);
  return self.string() + ' ' + std::to_string(size) + ' ' + std::to_string(time.time_since_epoch().count());
}

}  // namespace

Result<std::string> published_inputs_digest(const fs::path& data_dir) {
  std::string lines = std::string(kSnapshotFormat) + '\n' + build_info::version + ' ' + build_info::git_commit() + '\n' +
                      executable_identity() + '\n';
  for (const fs::path& file : published_csv_files(data_dir / "published")) {
    if (auto added = add_file(lines, data_dir, file); !added) return added.error();
  }
  const fs::path sessions = data_dir / "sessions";
  std::error_code ec;
  if (fs::exists(sessions / "shipped.txt", ec)) {
    if (auto added = add_file(lines, data_dir, sessions / "shipped.txt"); !added) return added.error();
  }
  auto folders = shipped_session_folders(sessions);
  if (!folders) return folders.error();
  for (const fs::path& folder : *folders) {
    lines += "folder " + folder.lexically_relative(data_dir).generic_string() + '\n';
    for (const fs::path& report : session_report_files(folder)) {
      if (auto added = add_file(lines, data_dir, report); !added) return added.error();
    }
    if (fs::exists(folder / "run.json", ec)) {
      if (auto added = add_file(lines, data_dir, folder / "run.json"); !added) return added.error();
    }
  }
  return sha256_hex(lines);
}

fs::path published_snapshot_path(const std::string& digest) {
  return cache_dir() / ("published-store-" + digest.substr(0, 32) + ".sqlite");
}

}  // namespace ecocompute::data
