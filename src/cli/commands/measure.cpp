// `ecocompute measure`: not available yet; it says so and exits non-zero rather than print anything
// that could be mistaken for a measurement.
#include "cli/command.hpp"
#include "cli/exit_code.hpp"
#include "util/log.hpp"

namespace ecocompute::cli {

Command make_measure_command(CLI::App& root) {
  CLI::App* app = root.add_subcommand("measure", "Measure energy per token and quality of precisions "
                                                 "against a same-run baseline (not available yet)");
  app->allow_extras();
  return {app, [] {
            log::error("measure is not available in this build yet; nothing was measured");
            return static_cast<int>(exit_environment);
          }};
}

}  // namespace ecocompute::cli
