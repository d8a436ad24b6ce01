// RunFolder: how a run's files reach --out all at once. The reports and run.json are written into a
// staging folder beside --out, then the two folders are exchanged in one rename (renameat2
// RENAME_EXCHANGE), so a reader of --out, or a kill -9 at any instant, finds either the previous run's
// whole set or the new run's whole set, never a mix. The previous run is kept beside --out as
// <out>.previous-<n>; files in --out that no run wrote (a sweep's log, say) are linked into the new folder.
//
//   auto staging = begin_run_folder(out_dir, run_id);      // before the first window
//   ... write every file into *staging ...
//   auto committed = commit_run_folder(*staging, out_dir);  // one rename
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string_view>

#include "util/result.hpp"

namespace ecocompute::experiment {

/// Called after each change a commit makes on disk, with what it did ("link notes.txt", "exchange",
/// "set aside"); tests stop the process there to check every intermediate state.
using RunFolderStep = std::function<void(std::string_view step)>;

/// Whether a file name is one a run writes into its folder: run.json or energy-*.json.
[[nodiscard]] bool is_run_file(std::string_view name) noexcept;

/// Checks `out_dir` before a run and returns the folder its files are to be written into: a new,
/// empty, hidden staging folder beside `out_dir` (".<name>.partial-<run_id>"). Error (invalid_argument,
/// naming the folder) when `out_dir` is a file, holds folders of its own, or it or its parent cannot be
/// written: found before anything is measured, so no run's results are lost at its end.
[[nodiscard]] Result<std::filesystem::path> begin_run_folder(const std::filesystem::path& out_dir,
                                                             std::string_view run_id);

/// Puts the staging folder's files in place as `out_dir`, in one rename. Returns where the previous
/// run's files went (<out>.previous-<n>), or nullopt when `out_dir` held no run. A file system without
/// RENAME_EXCHANGE gets two renames (the previous folder aside, then the new one in place).
[[nodiscard]] Result<std::optional<std::filesystem::path>> commit_run_folder(const std::filesystem::path& staging,
                                                                             const std::filesystem::path& out_dir,
                                                                             const RunFolderStep& step = {});

}  // namespace ecocompute::experiment
