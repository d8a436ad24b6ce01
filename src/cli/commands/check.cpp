// `ecocompute check report.json`: grades a measured report, by our rules (default) or the published
// checker's (--rules published). Exit 0 inside the band, 1 outside, 2 not gradeable; the reason and
// the rules that graded it are printed.
#include <iostream>

#include "cli/command.hpp"
#include "report/report_consistency.hpp"
#include "cli/commands/evidence_flags.hpp"
#include "cli/exit_code.hpp"
#include "data/grader.hpp"
#include "data/published_reference.hpp"
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

// Our curve flags choose among the store's fits; the published rules grade against the published
// reference only, so mixing the two is a usage error rather than a silent choice.
Result<void> check_flag_mix(const CLI::App& app, data::GradingRules rules) {
  if (rules == data::GradingRules::published) {
    for (const char* flag : {"--curves", "--session", "--pool-sessions", "--unweighted", "--store"}) {
      if (app.count(flag) > 0) {
        return unexpected(ErrorCode::invalid_argument,
                          std::string(flag) + " chooses our curves; --rules published grades against the published "
                                              "curves and anchors (or --reference curves.json)");
      }
    }
  } else if (app.count("--reference") > 0) {
    return unexpected(ErrorCode::invalid_argument, "--reference is the published checker's curves.json: use it with --rules published");
  }
  return {};
}

}  // namespace

Command make_check_command(CLI::App& root) {
  auto o = std::make_shared<CheckOptions>();
  CLI::App* app = root.add_subcommand(
      "check", "Grade a measured energy.json (exit 0 inside the band, 1 outside, 2 not gradeable). Our rules by default: "
               "ΔE from the energies against one session's points at that size, else its curve; --rules published: "
               "the published checker's (stated ΔE against the published anchors at that size, else the curve)");
  app->add_option("report", o->report, "energy.json to grade")->required();
  app->add_option("--k", o->k, "Band half-width in residual standard deviations")->capture_default_str()->check(CLI::PositiveNumber);
  app->add_option("--rules", o->rules, "Grading rules: ecocompute (ours) or published (the published checker's)")
      ->capture_default_str()
      ->check(CLI::IsMember({"ecocompute", "published"}));
  app->add_option("--reference", o->reference,
                  "With --rules published: a curves.json to grade against (default: the shipped published curves and anchors)");
  o->evidence.add_to(app);
  app->add_flag("--json", o->json, "Print the grade as JSON");
  return {app, [o, app] {
            auto rules = data::parse_grading_rules(o->rules);
            if (!rules) return report_error(rules.error());
            if (auto mix = check_flag_mix(*app, *rules); !mix) return report_error(mix.error());
            data::GradeResult result;
            auto report = report::read_energy_report(o->report);
            const auto contradiction = report ? report::contradiction_error(*report, o->report) : std::nullopt;
            if (!report) {
              result = data::not_gradeable(report.error().describe(), *rules, o->k);
            } else if (contradiction) {
              result = data::not_gradeable(contradiction->describe(), *rules, o->k);
            } else if (*rules == data::GradingRules::published) {
              auto reference = load_reference(o->reference);
              if (!reference) return report_error(reference.error());
              result = data::grade_report_published(*report, *reference, o->k);
            } else {
              auto evidence = o->evidence.load();
              if (!evidence) return report_error(evidence.error());
              result = data::grade_report(*report, *evidence, o->k);
            }
            print_answer(result, o->json);
            return result.exit_code();
          }};
}

}  // namespace ecocompute::cli
