// Staging a run's files beside --out and exchanging the folders in one rename.
#include "experiment/run_folder.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>  // renameat2 and RENAME_EXCHANGE (glibc ≥ 2.28, _GNU_SOURCE)

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "util/file_io.hpp"

namespace ecocompute::experiment {
namespace fs = std::filesystem;
namespace {

// An absolute, normalised --out without a trailing separator, so that its parent and name are real.
fs::path normalised(const fs::path& out_dir) {
  fs::path path = fs::absolute(out_dir.empty() ? fs::path(".") : out_dir).lexically_normal();
  if (!path.has_filename() && path.has_parent_path() && path != path.root_path()) path = path.parent_path();
  return path;
}

Result<void> sync_folder(const fs::path& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return unexpected(ErrorCode::io, "cannot open " + folder.string() + " to sync it");
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return unexpected(ErrorCode::io, "cannot sync " + folder.string());
  return {};
}

// renameat2(RENAME_EXCHANGE): both paths exist before and after; only their contents trade places.
bool exchange(const fs::path& a, const fs::path& b, int& error) {
  const int rc = ::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE);
  error = rc == 0 ? 0 : errno;
  return rc == 0;
}

// Links (or, across file systems, copies) each file of `out` that no run wrote into `staging`.
Result<void> carry_foreign_files(const fs::path& out, const fs::path& staging, const RunFolderStep& step) {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(out, ec)) {
    const std::string name = entry.path().filename().string();
    // A file of the new run's own (a sweep.json, say) is never replaced by the previous run's.
    if (is_run_file(name) || entry.is_directory(ec) || fs::exists(staging / name, ec)) continue;
    fs::create_hard_link(entry.path(), staging / name, ec);
    if (ec) fs::copy_file(entry.path(), staging / name, fs::copy_options::overwrite_existing, ec);
    if (ec) return unexpected(ErrorCode::io, fmt::format("cannot carry {} into the new run folder: {}", entry.path().string(), ec.message()));
    if (step) step("link " + name);
  }
  if (ec) return unexpected(ErrorCode::io, fmt::format("cannot list {}: {}", out.string(), ec.message()));
  return {};
}

bool holds_a_run(const fs::path& folder) {
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(folder, ec)) {
    if (is_run_file(entry.path().filename().string())) return true;
  }
  return false;
}

fs::path free_previous_name(const fs::path& out) {
  std::error_code ec;
  for (int n = 1;; ++n) {
    fs::path candidate = out.parent_path() / fmt::format("{}.previous-{}", out.filename().string(), n);
    if (!fs::exists(candidate, ec)) return candidate;
  }
}

}  // namespace

bool is_run_file(std::string_view name) noexcept {
  return name == "run.json" || (name.starts_with("energy-") && name.ends_with(".json"));
}

Result<fs::path> begin_run_folder(const fs::path& out_dir, std::string_view run_id) {
  const fs::path out = normalised(out_dir);
  const std::string display = out_dir.empty() ? std::string(".") : out_dir.string();
  std::error_code ec;
  if (fs::exists(out, ec) && !fs::is_directory(out, ec)) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("output folder {}: a file of that name exists (choose another --out)", display));
  }
  if (!fs::create_directories(out, ec) && ec) {
    return unexpected(ErrorCode::invalid_argument, fmt::format("output folder {}: cannot be created: {}", display, ec.message()));
  }
  std::vector<std::string> folders;
  for (const fs::directory_entry& entry : fs::directory_iterator(out, ec)) {
    if (entry.is_directory(ec)) folders.push_back(entry.path().filename().string());
  }
  if (!folders.empty()) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("output folder {}: holds folders ({}{}); a run is written into a folder of its own "
                                  "and replaces it whole, so choose another --out",
                                  display, folders.front(), folders.size() > 1 ? ", …" : ""));
  }
  const fs::path staging = out.parent_path() / fmt::format(".{}.partial-{}", out.filename().string(), run_id);
  fs::remove_all(staging, ec);
  if (!fs::create_directory(staging, ec) || ec) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("output folder {}: its parent {} is not writable (a run is staged beside it): {}",
                                  display, out.parent_path().string(), ec.message()));
  }
  if (auto written = write_file_atomic(out / ".ecocompute-write-test", "ok\n"); !written) {
    fs::remove_all(staging, ec);
    return Error{ErrorCode::invalid_argument, fmt::format("output folder {}: not writable", display), written.error()};
  }
  fs::remove(out / ".ecocompute-write-test", ec);
  return staging;
}

Result<std::optional<fs::path>> commit_run_folder(const fs::path& staging, const fs::path& out_dir, const RunFolderStep& step) {
  const fs::path out = normalised(out_dir);
  std::error_code ec;
  if (auto carried = carry_foreign_files(out, staging, step); !carried) return carried.error();
  if (auto synced = sync_folder(staging); !synced) return synced.error();
  int error = 0;
  if (!exchange(staging, out, error)) {
    if (error != EINVAL && error != ENOSYS && error != ENOENT) {
      return unexpected(ErrorCode::io, fmt::format("cannot put the run in place as {}: {}", out.string(), std::strerror(error)));
    }
    // Without RENAME_EXCHANGE (or with no folder to exchange): the previous folder goes aside first.
    std::optional<fs::path> aside;
    if (fs::exists(out, ec)) {
      aside = free_previous_name(out);
      fs::rename(out, *aside, ec);
      if (ec) return unexpected(ErrorCode::io, fmt::format("cannot move {} aside: {}", out.string(), ec.message()));
      if (step) step("set aside");
    }
    fs::rename(staging, out, ec);
    if (ec) return unexpected(ErrorCode::io, fmt::format("cannot put the run in place as {}: {}", out.string(), ec.message()));
    if (step) step("rename");
    (void)sync_folder(out.parent_path());
    return aside;
  }
  if (step) step("exchange");
  // The staging name now holds the previous folder: kept beside --out when it held a run, else removed
  // (it holds only links to files the new folder has too).
  std::optional<fs::path> aside;
  if (holds_a_run(staging)) {
    aside = free_previous_name(out);
    fs::rename(staging, *aside, ec);
    if (ec) return unexpected(ErrorCode::io, fmt::format("cannot move the previous run aside: {}", ec.message()));
  } else {
    fs::remove_all(staging, ec);
  }
  if (step) step("set aside");
  (void)sync_folder(out.parent_path());
  return aside;
}

}  // namespace ecocompute::experiment
