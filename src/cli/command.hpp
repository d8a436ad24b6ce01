// Command: one subcommand of the binary. cli/ parses arguments and calls the library; no logic here.
#pragma once

#include <CLI/CLI.hpp>

#include <filesystem>
#include <functional>
#include <optional>
#include <vector>

#include "util/error.hpp"

namespace ecocompute::cli {

/// A registered subcommand: its CLI11 node, and what runs when it was chosen (returns an exit code).
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

/// Adds every subcommand to `root`. Each file src/cli/commands/<name>.cpp defines
/// `Command make_<name>_command(CLI::App& root)`; CMake generates the list (commands are alphabetical).
std::vector<Command> make_all_commands(CLI::App& root);

/// Prints "ecocompute: error: <error>" to stderr and returns the exit code for it.
int report_error(const Error& error);

/// Returns exit 3 ("environment unusable: … model missing", README) with a message naming the file
/// when `model` is not an existing file; nothing when it is.
std::optional<int> report_missing_model(const std::filesystem::path& model);

}  // namespace ecocompute::cli
