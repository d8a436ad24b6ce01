// The consistency checker: every report this project ships (the measured sessions, the golden reports,
// the fixtures) agrees with itself, and each mutation of the corpus below — one figure changed so that it
// contradicts the others — is found, naming the field that disagrees.
#include "report/report_consistency.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "report/energy_field_list.hpp"
#include "support/golden.hpp"
#include "util/json.hpp"

namespace ecocompute::report {
namespace {
namespace fs = std::filesystem;

std::vector<fs::path> shipped_reports() {
  std::vector<fs::path> out;
  for (const char* folder : {"data/sessions", "tests/golden", "tests/unit/server/fixtures", "tests/unit/data/fixtures"}) {
    for (const auto& entry : fs::recursive_directory_iterator(fs::path(ECOCOMPUTE_SOURCE_DIR) / folder)) {
      if (entry.path().extension() != ".json") continue;
      auto document = read_json_file(entry.path());
      if (!document || !document->is_object() || !document->value("schema_version", "").starts_with("ecocompute-energy/")) continue;
      out.push_back(entry.path());
    }
  }
  return out;
}

TEST(ReportConsistency, EveryShippedReportAgreesWithItself) {
  const auto files = shipped_reports();
  EXPECT_GT(files.size(), 200u);
  for (const fs::path& file : files) {
    auto report = read_energy_report(file);
    ASSERT_TRUE(report) << report.error().describe();
    for (const Contradiction& c : find_contradictions(*report)) ADD_FAILURE() << file << ": " << c.field << ": " << c.message;
  }
}

OrderedJson golden(const std::string& name) { return *read_json_file(ecocompute::testing::golden_path(name)); }

struct Mutation {
  const char* name;
  const char* report;  ///< golden file it starts from
  std::function<void(OrderedJson&)> change;
  const char* field;   ///< the field the checker must name
  const char* quoted;  ///< a value the message must quote
};

const char* const k12 = "energy/energy-Q4_K_M.json";
const char* const k11 = "schema/published_1_1.json";

// Mutations of the totals, the statistics, the trial list and the power.
std::vector<Mutation> figure_mutations() {
  return {
      {"no token generated, an energy per token", k12, [](OrderedJson& j) { j["results"]["tokens_generated"] = 0; },
       "results.tokens_generated", "820.469"},
      {"total 1 J against 6.3 kJ implied", k12, [](OrderedJson& j) { j["results"]["total_energy_joules"] = 1.0; },
       "results.total_energy_joules", "6301.2"},
      {"energies halved, totals unchanged", k12,
       [](OrderedJson& j) {
         for (const char* k : {"energy_per_token_mj", "fp16_energy_per_token_mj"}) j["results"][k] = j["results"][k].get<double>() / 2;
       },
       "results.total_energy_joules", "410.234"},
      {"7 failed of 3 trials", k12, [](OrderedJson& j) { j["statistics"]["n_failed"] = 7; }, "statistics.n_failed", "7 failed"},
      {"3 trials, 1 listed", k12, [](OrderedJson& j) { j["trials"] = OrderedJson::array({j["trials"][0]}); }, "trials", "1 trial listed"},
      {"energy CI upside down", k12,
       [](OrderedJson& j) { std::swap(j["statistics"]["energy_per_token_mj"]["ci95_low"], j["statistics"]["energy_per_token_mj"]["ci95_high"]); },
       "statistics.energy_per_token_mj.ci95_low", "899.069"},
      {"ΔE CI upside down", k12,
       [](OrderedJson& j) { std::swap(j["statistics"]["vs_fp16_energy_pct"]["ci95_low"], j["statistics"]["vs_fp16_energy_pct"]["ci95_high"]); },
       "statistics.vs_fp16_energy_pct.ci95_low", "-25.0317"},
      {"mean outside its interval", k12, [](OrderedJson& j) { j["statistics"]["energy_per_token_mj"]["ci95_high"] = 800.0; },
       "statistics.energy_per_token_mj.mean", "820.469"},
      {"statistics mean is not the result", k12, [](OrderedJson& j) { j["statistics"]["energy_per_token_mj"]["mean"] = 850.0; },
       "statistics.energy_per_token_mj.mean", "850"},
      {"CV not sd / mean", k12, [](OrderedJson& j) { j["statistics"]["energy_per_token_mj"]["cv_pct"] = 38.5; },
       "statistics.energy_per_token_mj.cv_pct", "38.5"},
      {"more pairs than trials", k12, [](OrderedJson& j) { j["statistics"]["vs_fp16_energy_pct"]["n_pairs"] = 9; },
       "statistics.vs_fp16_energy_pct.n_pairs", "9"},
      {"50,000 W on a 700 W card", k12, [](OrderedJson& j) { j["results"]["avg_power_watts"] = 50000.0; },
       "results.avg_power_watts", "700 W"},
      {"50,000 W with no power limit given", k11, [](OrderedJson& j) { j["results"]["avg_power_watts"] = 50000.0; },
       "results.avg_power_watts", "2000 W"},
      {"decode phase above the power limit", k12, [](OrderedJson& j) { j["results"]["decode"]["avg_power_w"] = 1200.0; },
       "results.decode.avg_power_w", "1200"},
  };
}

// Mutations of the date, the model and its file, the decode phase, single trials and quality.
std::vector<Mutation> record_mutations() {
  return {
      {"month 13, day 45, hour 99", k12, [](OrderedJson& j) { j["timestamp_utc"] = "2026-13-45T99:99:99Z"; }, "timestamp_utc",
       "2026-13-45T99:99:99Z"},
      {"30 February", k11, [](OrderedJson& j) { j["timestamp_utc"] = "2026-02-30T10:00:00Z"; }, "timestamp_utc", "2026-02-30"},
      {"gguf_type Q4_0 for precision Q4_K_M", k12, [](OrderedJson& j) { j["workload"]["gguf_type"] = "Q4_0"; }, "workload.gguf_type",
       "Q4_0"},
      {"8-bit class for a 4-bit type", k12, [](OrderedJson& j) { j["workload"]["precision_class"] = "8-bit"; },
       "workload.precision_class", "8-bit"},
      {"16 bits per weight in a 4.89-bit file", k12, [](OrderedJson& j) { j["workload"]["bits_per_weight"] = 16.0; },
       "workload.bits_per_weight", "4.89"},
      {"size ten times the parameters", k12, [](OrderedJson& j) { j["workload"]["params_b"] = 0.04; }, "workload.params_b", "0.004"},
      {"decode energy per token doubled", k12,
       [](OrderedJson& j) { j["results"]["decode"]["energy_per_token_mj"] = 1640.9375; }, "results.decode.energy_per_token_mj",
       "1640.94"},
      {"tokens generated not the decode tokens", k12, [](OrderedJson& j) { j["results"]["tokens_generated"] = 15360; },
       "results.tokens_generated", "7680"},
      {"net energy above gross", k12, [](OrderedJson& j) { j["results"]["net_energy_per_token_mj"] = 2000.0; },
       "results.net_energy_per_token_mj", "2000"},
      {"a trial's window energy per token doubled", k12,
       [](OrderedJson& j) { j["trials"][0]["decode"]["energy_per_token_mj"] = 1640.625; }, "trials[0].decode.energy_per_token_mj",
       "820.312"},
      {"a trial's power not energy / time", k12, [](OrderedJson& j) { j["trials"][0]["decode"]["avg_power_w"] = 420.0; },
       "trials[0].decode.avg_power_w", "210"},
      {"perplexity delta with its sign flipped", k12, [](OrderedJson& j) { j["quality"]["delta_vs_fp16_pct"] = -5.0; },
       "quality.delta_vs_fp16_pct", "-5"},
      {"mean log-likelihood not of the perplexity", k12, [](OrderedJson& j) { j["quality"]["mean_nll"] = 2.0; }, "quality.mean_nll",
       "3.04452"},
  };
}

TEST(ReportConsistency, EachMutationOfTheCorpusIsFoundByItsField) {
  auto corpus = figure_mutations();
  for (Mutation& m : record_mutations()) corpus.push_back(std::move(m));
  EXPECT_GE(corpus.size(), 24u);
  for (const Mutation& m : corpus) {
    OrderedJson document = golden(m.report);
    ASSERT_TRUE(find_contradictions(*energy_report_from_json(document, m.report)).empty()) << m.report;
    m.change(document);
    auto report = energy_report_from_json(document, m.name);
    ASSERT_TRUE(report) << m.name << ": " << report.error().describe();
    const auto found = find_contradictions(*report);
    const auto hit = std::find_if(found.begin(), found.end(), [&](const Contradiction& c) { return c.field == m.field; });
    ASSERT_NE(hit, found.end()) << m.name << ": " << found.size() << " found, none in " << m.field;
    for (const Contradiction& c : found) EXPECT_TRUE(is_energy_report_field(c.field)) << c.field << " is not a field of the table";
    EXPECT_NE(hit->message.find(m.quoted), std::string::npos) << m.name << ": " << hit->message;
    const auto error = contradiction_error(*report, "energy.json");
    ASSERT_TRUE(error);
    EXPECT_EQ(error->code(), ErrorCode::invalid_input);
    EXPECT_NE(error->message().find(std::string(m.field) + ": "), std::string::npos) << error->message();
  }
}

TEST(ReportConsistency, TimestampsMustExist) {
  for (const char* good : {"2026-11-29T17:00:00Z", "2024-02-29T00:00:00Z", "2026-12-31T23:59:60Z", "2026-01-01T00:00:00.123Z",
                           "2026-01-01T08:00:00+02:00"}) {
    EXPECT_TRUE(is_valid_timestamp(good)) << good;
  }
  for (const char* bad : {"2026-13-45T99:99:99Z", "2025-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-11-29 17:00:00Z",
                          "2026-11-29T17:00:00", "2026-11-29T17:00:00.Z", "2026-11-29T17:00:00Zjunk", "", "2026-11-29T24:00:00Z"}) {
    EXPECT_FALSE(is_valid_timestamp(bad)) << bad;
  }
}

}  // namespace
}  // namespace ecocompute::report
