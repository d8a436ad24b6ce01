// Runs the ecocompute binary under test through the shell and keeps its exit status and both streams.
#pragma once

#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "support/scratch_dir.hpp"

namespace ecocompute::testing {

struct CliOutcome {
  int status = -1;  ///< exit status, -1 when a signal ended it
  std::string out;
  std::string err;
};

/// Runs `environment 'ECOCOMPUTE_BINARY' args` with stdout and stderr in `dir`/stdout and `dir`/stderr.
inline CliOutcome run_ecocompute(const std::string& environment, const std::string& args, const std::filesystem::path& dir) {
  const std::string command = environment + " '" + ECOCOMPUTE_BINARY + "' " + args + " > '" + (dir / "stdout").string() +
                              "' 2> '" + (dir / "stderr").string() + "'";
  CliOutcome outcome;
  const int status = std::system(command.c_str());
  outcome.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  outcome.out = slurp(dir / "stdout");
  outcome.err = slurp(dir / "stderr");
  return outcome;
}

}  // namespace ecocompute::testing
