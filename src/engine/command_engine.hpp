// CommandEngine: any program as the measured engine, driven over the command protocol
// (docs/command-protocol.md). The program loads its model once and declares itself (`hello …`); each
// prefill and decode is a request it answers after synchronizing its device, so the runner's window
// edges sit on finished work exactly as with the in-process engine.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/command_protocol.hpp"
#include "engine/engine.hpp"
#include "util/result.hpp"
#include "util/units.hpp"

namespace ecocompute::engine {

/// The prompt length, in tokens, when the design names none (--prompt-lengths): the default prompt
/// text's length in the published protocol, about ten tokens.
inline constexpr std::int64_t kCommandPromptTokens = 10;

/// One program to measure, for one precision label.
struct CommandSpec {
  std::string label;    ///< the precision label of the report ("FP16", "NF4" …)
  std::string command;  ///< run by /bin/sh -c
  Seconds start_timeout{600.0};  ///< for the hello line (loading a model can take minutes)
  Seconds reply_timeout{600.0};  ///< for each request's reply
  std::int64_t prompt_tokens = kCommandPromptTokens;  ///< what tokenize() returns for any prompt text
  /// Added to the program's environment (e.g. ECOCOMPUTE_GPU_UUID and CUDA_VISIBLE_DEVICES).
  std::vector<std::pair<std::string, std::string>> environment;
  /// Set (by a signal handler) to give up waiting for the hello; nullptr: never. Must outlive the open.
  const std::atomic<bool>* cancel = nullptr;
};

/// Starts the program and waits for its hello. Errors: the program cannot be started (not_found);
/// it exits, stays silent past start_timeout, or sends anything but a valid hello (engine, with the
/// program's exit status or its line); `cancel` set meanwhile (cancelled). The program is stopped again
/// on every error.
[[nodiscard]] Result<std::unique_ptr<Engine>> open_command_engine(const CommandSpec& spec);

/// The program's declaration, when `engine` is a CommandEngine (else nullptr).
[[nodiscard]] const Hello* command_declaration(const Engine& engine) noexcept;

}  // namespace ecocompute::engine
