// `ecocompute validate FILE...`: checks energy.json reports (1.0, 1.1 or 1.2) against the shipped schema, and
// says what the tool's own summaries (run.json, a serving sweep's sweep.json) are, checking that they read.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>


#include "cli/command.hpp"
#include "cli/exit_code.hpp"
#include "report/energy_report.hpp"
#include "report/energy_schema.hpp"
#include "report/report_consistency.hpp"
#include "report/run_report.hpp"
#include "util/json.hpp"

namespace ecocompute::cli {
namespace {

struct SummaryCheck {
  bool valid = false;
  std::string message;
};

// The check of a serving sweep's summary (sweep.json of measure-endpoint): the fields its readers use.
SummaryCheck serving_sweep_check(const Json& document, const std::string& version) {
  std::vector<std::string> missing;
  for (const char* key : {"run_id", "endpoints", "levels", "paired_vs_baseline"}) {
    if (!document.contains(key)) missing.emplace_back(key);
  }
  const bool typed = missing.empty() && document["run_id"].is_string() && document["endpoints"].is_array() &&
                     document["levels"].is_array();
  if (!typed) {
    std::string list;
    for (const auto& key : missing) list += (list.empty() ? "" : ", ") + key;
    return SummaryCheck{false, "a serving sweep summary (" + version + "), not an energy.json; it does not read: " +
                                   (list.empty() ? std::string("run_id, endpoints or levels has the wrong type")
                                                 : "missing " + list)};
  }
  return SummaryCheck{true, "a serving sweep summary (" + version + ", run " + document["run_id"].get<std::string>() +
                                "), not an energy.json: it reads without error; its reports are the "
                                "energy-<label>-c<C>.json files beside it"};
}

// Returns the check of one of the tool's own summaries (a run's run.json, a serving sweep's sweep.json),
// or nothing for any other file (which is then checked as an energy.json).
std::optional<SummaryCheck> run_summary_check(const std::string& file) {
  auto document = read_json_file(file);
  if (!document || !document->is_object()) return std::nullopt;
  const auto version = document->find("schema_version");
  if (version == document->end() || !version->is_string()) return std::nullopt;
  const std::string kind = version->get<std::string>();
  if (kind.starts_with("ecocompute-serving-sweep/")) return serving_sweep_check(*document, kind);
  if (!kind.starts_with("ecocompute-run/")) return std::nullopt;
  auto summary = report::run_report_from_json(*document, file);
  if (!summary) return SummaryCheck{false, "a run summary (run.json), not an energy.json; it does not read: " +
                                               summary.error().message()};
  return SummaryCheck{true, "a run summary (" + summary->schema_version + ", run " + summary->run_id +
                                "), not an energy.json: it reads without error; its reports are the energy-*.json "
                                "files beside it"};
}

// The contradictions of a schema-valid report file (report_consistency.hpp); none when it does not read.
std::vector<report::Contradiction> contradictions_of(const std::string& file) {
  auto report = report::read_energy_report(file);
  if (!report) return {{"/", report.error().describe()}};
  return report::find_contradictions(*report);
}

}  // namespace

Command make_validate_command(CLI::App& root) {
  CLI::App* app = root.add_subcommand(
      "validate", "Check energy.json reports (ecocompute-energy/1.0, 1.1 or 1.2) against the shipped JSON "
                  "Schema and the consistency rules (docs/energy-json.md); prints each problem with its JSON pointer "
                  "or field. Exit 0 when every file is valid, 2 otherwise");
  auto files = std::make_shared<std::vector<std::string>>();
  auto print_schema = std::make_shared<bool>(false);
  app->add_option("files", *files, "Report files to check")->type_name("FILE");
  app->add_flag("--print-schema", *print_schema, "Print the shipped JSON Schema to stdout and exit");
  return {app, [files, print_schema] {
            if (*print_schema) {
              const std::string_view schema = report::energy_schema_text();
              std::fwrite(schema.data(), 1, schema.size(), stdout);
              return static_cast<int>(exit_ok);
            }
            if (files->empty()) {
              std::fprintf(stderr, "ecocompute: error: validate needs at least one FILE\n");
              return static_cast<int>(exit_usage);
            }
            bool all_valid = true;
            for (const std::string& file : *files) {
              // run.json and sweep.json are summaries, not reports: say so, and check that they read as such.
              if (auto summary = run_summary_check(file)) {
                all_valid = all_valid && summary->valid;
                std::printf("%s: %s\n", file.c_str(), summary->message.c_str());
                continue;
              }
              auto problems = report::validate_energy_file(file);
              if (!problems) {
                all_valid = false;
                std::fprintf(stderr, "%s: unreadable: %s\n", file.c_str(), problems.error().describe().c_str());
                continue;
              }
              if (problems->empty()) {
                // Valid against the schema; then every figure that can be recomputed from the others must agree.
                const auto contradictions = contradictions_of(file);
                if (contradictions.empty()) {
                  std::printf("%s: valid\n", file.c_str());
                  continue;
                }
                all_valid = false;
                std::printf("%s: invalid (%zu figure%s contradict%s the others)\n", file.c_str(), contradictions.size(),
                            contradictions.size() == 1 ? "" : "s", contradictions.size() == 1 ? "s" : "");
                for (const report::Contradiction& c : contradictions) std::printf("  %s: %s\n", c.field.c_str(), c.message.c_str());
                continue;
              }
              all_valid = false;
              std::printf("%s: invalid (%zu problem%s)\n", file.c_str(), problems->size(),
                          problems->size() == 1 ? "" : "s");
              for (const report::SchemaProblem& p : *problems) {
                std::printf("  %s: %s\n", p.pointer.empty() ? "/" : p.pointer.c_str(), p.message.c_str());
              }
            }
            return static_cast<int>(all_valid ? exit_ok : exit_usage);
          }};
}

}  // namespace ecocompute::cli
