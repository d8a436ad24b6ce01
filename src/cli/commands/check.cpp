// `ecocompute check report.json`: grades a measured report against the curve for its architecture,
// engine and precision. Exit 0 inside k·resid_std, 1 outside, 2 not gradeable; the reason is printed.
#include <iostream>

#include "cli/command.hpp"
#include "cli/commands/evidence_flags.hpp"
#include "cli/exit_code.hpp"
#include "data/console_text.hpp"
#include "data/dataset_import.hpp"
#include "data/grader.hpp"
#include "util/defaults.hpp"

namespace ecocompute::cli {

Command make_check_command(CLI::App& root) {
  struct Options {
    std::string report;
    double k = defaults::check_band_k;
    EvidenceFlags evidence;
    bool json = false;
  };
  auto o = std::make_shared<Options>();
  CLI::App* app = root.add_subcommand("check", "Grade a measured energy.json against the curve for its arch/engine/precision "
                                               "(exit 0 inside the band, 1 outside, 2 not gradeable)");
  app->add_option("report", o->report, "energy.json to grade")->required();
  app->add_option("--k", o->k, "Band half-width in residual standard deviations")->capture_default_str()->check(CLI::PositiveNumber);
  o->evidence.add_to(app);
  app->add_flag("--json", o->json, "Print the grade as JSON");
  return {app, [o] {
            data::GradeResult result;
            result.k = o->k;
            auto batch = data::read_report_batch(o->report);
            if (!batch) {
              result.reason = batch.error().describe();
            } else {
              auto evidence = o->evidence.load();
              if (!evidence) return report_error(evidence.error());
              result = data::grade(*batch, *evidence, o->k);
            }
            print_answer(result, o->json);
            return result.exit_code();
          }};
}

}  // namespace ecocompute::cli
