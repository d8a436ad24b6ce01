// Error reporting shared by the subcommands.
#include "cli/command.hpp"

#include "cli/exit_code.hpp"
#include "util/log.hpp"

namespace ecocompute::cli {

int report_error(const Error& error) {
  log::error("{}", error.describe());
  return exit_code_for(error.code());
}

std::optional<int> report_missing_model(const std::filesystem::path& model) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(model, ec)) return std::nullopt;
  log::error("model {} {}", model.string(),
             std::filesystem::exists(model, ec) ? "is not a regular file" : "does not exist");
  return exit_environment;
}

}  // namespace ecocompute::cli
