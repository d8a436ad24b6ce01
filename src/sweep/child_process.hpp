// Child processes of the sweep: the steps of its jobs (`ecocompute sweep job`), started (util's
// ChildProcess) with their own environment and log file, tied to the thread that started them (they
// die with it, so a killed coordinator leaves no measurement running unrecorded).
#pragma once

#include <atomic>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "util/child_process.hpp"
#include "util/result.hpp"

namespace ecocompute::sweep {

/// How a child ended.
struct ChildExit {
  int exit_code = -1;  ///< when it exited
  int signal = 0;      ///< when a signal ended it (then exit_code is -1)
};

/// Starts `binary args…` with the current environment plus `environment` (each NAME=VALUE replaces
/// NAME), stdout and stderr appended to `log`, in the sweep's own process group (a Ctrl-C at the
/// terminal reaches the children too). The child gets SIGKILL if the starting thread dies.
Result<ChildProcess> start_child(const std::filesystem::path& binary, const std::vector<std::string>& args,
                                 const std::vector<std::pair<std::string, std::string>>& environment,
                                 const std::filesystem::path& log);

/// Waits for the child; when `stop` becomes true it is sent SIGINT once (a measure step then writes
/// what it finished and exits 130).
ChildExit wait_child(ChildProcess& child, const std::atomic<bool>* stop);

/// The running binary's own path (/proc/self/exe), for starting its subcommands.
std::filesystem::path own_binary();

}  // namespace ecocompute::sweep
