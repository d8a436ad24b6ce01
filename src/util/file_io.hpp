// Whole-file reads and atomic writes.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace ecocompute {

/// Reads a whole file; the error names the path.
Result<std::string> read_file(const std::filesystem::path& path);

/// Replaces `path` whole or not at all: creates its missing parent folders, lets `write` fill a
/// temporary path beside it (the same folder, so that the rename is atomic; nothing is there when it
/// is called), then renames that over `path`. A reader never sees a half-written file; whatever `write`
/// left is removed when it or the rename fails. The error is `write`'s, or names the path.
Result<void> replace_file(const std::filesystem::path& path, const std::function<Result<void>(const std::filesystem::path&)>& write);

/// Writes `content` to a temporary file beside `path`, flushes it and renames it over `path`
/// (replace_file). The error names the path.
Result<void> write_file_atomic(const std::filesystem::path& path, std::string_view content);

/// Returns the hex sha256 of a byte string.
std::string sha256_hex(std::string_view bytes);

/// Returns the hex sha256 of a file's contents, read in chunks; the error names the path.
Result<std::string> sha256_file(const std::filesystem::path& path);

/// Returns the folder of shipped data: $ECOCOMPUTE_DATA_DIR if set, else an installed binary's
/// <prefix>/share/ecocompute/data (util/install_layout.hpp), else the source tree's data/.
std::filesystem::path data_dir();

/// Returns the folder for what the tool writes for a user (the stores `serve` keeps): $XDG_DATA_HOME/ecocompute,
/// else ~/.local/share/ecocompute, else a folder under the system's temporary folder. Never the source tree
/// or the shipped data folder, which may be read-only (an installed package) or under version control.
std::filesystem::path user_data_dir();

/// Where what can be made again from shipped data is kept (the fit of the shipped evidence, the shipped
/// evidence's store): $ECOCOMPUTE_CACHE_DIR, else $XDG_CACHE_HOME/ecocompute, else ~/.cache/ecocompute,
/// else the system's temporary folder.
std::filesystem::path cache_dir();

}  // namespace ecocompute
