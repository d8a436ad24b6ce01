// Where an installed ecocompute finds its shipped data and web UI: <prefix>/share/ecocompute beside
// the binary's <prefix>/bin (the Debian package installs /usr/bin/ecocompute and /usr/share/ecocompute).
#pragma once

#include <filesystem>

namespace ecocompute {

/// <prefix>/share/ecocompute when the running binary is <prefix>/bin/ecocompute and that folder holds
/// data/; empty otherwise (a binary in a build tree, which reads the source tree's data).
std::filesystem::path installed_share_dir();

}  // namespace ecocompute
