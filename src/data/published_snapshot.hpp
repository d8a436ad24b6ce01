// A copy of the store open_published_store() builds, kept in the cache folder under the digest of what it
// was built from, so that a command need not read every shipped report again: reading and importing them
// was three quarters of an `estimate` (0.64 s, 2026-12-07), and several seconds of every test process under
// AddressSanitizer.
#pragma once

#include <filesystem>
#include <string>

#include "util/result.hpp"

namespace ecocompute::data {

/// The sha256 (hex) of everything the published store is built from below `data_dir`: published/*.csv,
/// sessions/shipped.txt and each listed folder's reports and run.json, each file by its name and its
/// bytes, together with this program's version and commit and its executable's size and time, so that
/// another build never reads a copy this one did not make. An error where the list cannot be read (the
/// store's own reading then says what is wrong).
Result<std::string> published_inputs_digest(const std::filesystem::path& data_dir);

/// Where the copy of the published store built from inputs with this digest is kept: a file in cache_dir().
std::filesystem::path published_snapshot_path(const std::string& digest);

}  // namespace ecocompute::data
