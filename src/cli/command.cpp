// Error reporting shared by the subcommands.
#include "cli/command.hpp"

#include "cli/exit_code.hpp"
#include "util/log.hpp"

namespace ecocompute::cli {

int report_error(const Error& error) {
  log::error("{}", error.describe());
  return exit_code_for(error.code());
}

}  // namespace ecocompute::cli
