// The ecocompute binary: parses the command line and runs the chosen subcommand.
#include <CLI/CLI.hpp>

#include <cstdio>
#include <exception>
#include <map>
#include <string>

#include <fmt/format.h>

#include "ecocompute/build_info.hpp"
#include "cli/command.hpp"
#include "cli/exit_code.hpp"
#include "util/log.hpp"

namespace {
using namespace ecocompute;

int run(int argc, char** argv) {
  CLI::App root{"EcoCompute: does quantizing this model, on this GPU, with this engine, save energy "
                "per token, and what does it cost in quality?",
                "ecocompute"};
  root.require_subcommand(1);
  root.set_version_flag("--version", fmt::format("ecocompute {} (commit {}, llama.cpp {})",
                                                 build_info::version, build_info::git_commit(),
                                                 build_info::llama_commit));
  std::string log_level = "info";
  root.add_option("--log-level", log_level, "Lowest log level written to stderr")
      ->check(CLI::IsMember({"debug", "info", "warn", "error", "quiet"}));
  root.fallthrough();

  std::vector<cli::Command> commands = cli::make_all_commands(root);
  try {
    root.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return root.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return root.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return root.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "ecocompute: error: %s\nRun 'ecocompute --help' (or '<command> --help') for usage.\n",
                 e.what());
    return cli::exit_usage;
  }
  const std::map<std::string, log::Level> levels{{"debug", log::Level::debug}, {"info", log::Level::info},
                                                 {"warn", log::Level::warn}, {"error", log::Level::error},
                                                 {"quiet", log::Level::quiet}};
  log::set_level(levels.at(log_level));

  for (const cli::Command& command : commands) {
    if (command.app->parsed()) return command.run();
  }
  return cli::exit_usage;
}
}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ecocompute: internal error: %s\n", e.what());
    return ecocompute::cli::exit_internal;
  }
}
