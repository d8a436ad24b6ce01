// `ecocompute check report.json`: grades a measured report, by our rules (default) or the published
// checker's (--rules published). Exit 0 inside the band, 1 outside, 2 not gradeable; the reason and
// the rules that graded it are printed.
#include <iostream>

#include "cli/command.hpp"
#include "report/report_consistency.hpp"
#include "cli/commands/evidence_flags.hpp"
#include "cli/exit_code.hpp"
#include "data/published_reference.hpp"
#include "decide/grader.hpp"
#include "report/energy_report.hpp"
#include "util/defaults.hpp"
#include "util/file_io.hpp"

namespace ecocompute::cli {
namespace {

struct CheckOptions {
  std::string report;
  double k = defaults::check_band_k;
  std::string rules = "ecocompute";
  std::string reference;  ///< a curves.json for --rules published; empty: the shipped published files
  EvidenceFlags evidence;
  bool json = false;
};

Result<data::PublishedReference> load_reference(const std::string& curves_json) {
  if (curves_json.empty()) return data::read_published_reference(data_dir() / "published");
  return data::read_published_reference_json(curves_json);
}

// --store chooses our evidence, --k and --reference the published checker's band and curves: mixing
// a rule set with the other's flag is a usage error rather than a silent choice.
Result<void> check_flag_mix(const CLI::App& app, decide::GradingRules rules) {
  if (rules == decide::GradingRules::published) {
    if (app.count("--store") > 0) {
      return unexpected(ErrorCode::invalid_argument, "--store chooses our evidence; --rules published grades against the published "
                                                     "curves and anchors (or --reference curves.json)");
    }
  } else {
    if (app.count("--reference") > 0) {
      return unexpected(ErrorCode::invalid_argument, "--reference is the published checker's curves.json: use it with --rules published");
    }
    if (app.count("--k") > 0) {
      return unexpected(ErrorCode::invalid_argument, "--k is the published checker's band (k residual SDs): use it with --rules "
                                                     "published; our rules grade against the 95 % predictive interval");
    }
  }
  return {};
}

}  // namespace

Command make_check_command(CLI::App& root) {
  auto o = std::make_shared<CheckOptions>();
  CLI::App* app = root.add_subcommand(
      "check", "Grade a measured energy.json (exit 0 inside the band, 1 outside, 2 not gradeable). Our rules by default: "
               "ΔE from the energies against the decision model's 95 % predictive interval for a new card at the report's "
               "GPU, engine, format, size and batch (its own session left out); --rules published: the published checker's "
               "(stated ΔE against the published anchors at that size, else the curve, ± k residual SDs)");
  app->add_option("report", o->report, "energy.json to grade")->required();
  app->add_option("--k", o->k, "With --rules published: band half-width in residual standard deviations")->capture_default_str()->check(CLI::PositiveNumber);
  app->add_option("--rules", o->rules, "Grading rules: ecocompute (ours) or published (the published checker's)")
      ->capture_default_str()
      ->check(CLI::IsMember({"ecocompute", "published"}));
  app->add_option("--reference", o->reference,
                  "With --rules published: a curves.json to grade against (default: the shipped published curves and anchors)");
  o->evidence.add_to(app);
  app->add_flag("--json", o->json, "Print the grade as JSON");
  return {app, [o, app] {
            auto rules = decide::parse_grading_rules(o->rules);
            if (!rules) return report_error(rules.error());
            if (auto mix = check_flag_mix(*app, *rules); !mix) return report_error(mix.error());
            decide::GradeResult result;
            auto report = report::read_energy_report(o->report);
            const auto contradiction = report ? report::contradiction_error(*report, o->report) : std::nullopt;
            if (!report) {
              result = decide::not_gradeable(report.error().describe(), *rules, o->k);
            } else if (contradiction) {
              result = decide::not_gradeable(contradiction->describe(), *rules, o->k);
            } else if (*rules == decide::GradingRules::published) {
              auto reference = load_reference(o->reference);
              if (!reference) return report_error(reference.error());
              result = decide::grade_report_published(*report, *reference, o->k);
            } else {
              auto evidence = o->evidence.load();
              if (!evidence) return report_error(evidence.error());
              result = decide::grade_report(*report, *evidence);
            }
            print_answer(result, o->json);
            return result.exit_code();
          }};
}

}  // namespace ecocompute::cli
