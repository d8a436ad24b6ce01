// The binary's documented exit codes (README "Exit codes") and the mapping from error codes.
#pragma once

#include "util/error.hpp"

namespace ecocompute::cli {

enum ExitCode : int {
  exit_ok = 0,              ///< everything ran; reports written
  exit_internal = 1,        ///< unexpected internal error
  exit_usage = 2,           ///< bad flag, bad value or bad input file; nothing ran
  exit_environment = 3,     ///< environment unusable: no NVML, no GPU, model missing; nothing ran
  exit_failed_trials = 4,   ///< completed with failed trials; reports written with each reason
  exit_interrupted = 130,   ///< interrupted (Ctrl-C); completed trials written with their status
};

/// Returns the exit code for a failure that reached the command line.
constexpr int exit_code_for(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::invalid_argument:
    case ErrorCode::invalid_input:
    case ErrorCode::not_found:
    case ErrorCode::conflict: return exit_usage;
    case ErrorCode::unavailable:
    case ErrorCode::device:
    case ErrorCode::engine: return exit_environment;
    case ErrorCode::measurement: return exit_failed_trials;
    case ErrorCode::cancelled: return exit_interrupted;
    case ErrorCode::io:
    case ErrorCode::internal: return exit_internal;
  }
  return exit_internal;
}

}  // namespace ecocompute::cli
