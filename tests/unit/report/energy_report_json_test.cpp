// Tests of reading and writing the typed reports: our 1.2 reports and run.json round-trip byte for byte,
// published 1.1 reports read what they have, and malformed documents get errors naming the field.
#include "report/energy_report.hpp"

#include <gtest/gtest.h>

#include "golden_reports.hpp"
#include "report/run_report.hpp"
#include "support/golden.hpp"
#include "util/file_io.hpp"

namespace ecocompute::report {
namespace {

using ecocompute::testing::golden_path;

std::string golden_text(const std::string& name) { return read_file(golden_path(name)).value_or(""); }

OrderedJson golden_json(const std::string& name) { return read_json_file(golden_path(name)).value_or(OrderedJson()); }

TEST(EnergyReportJson, OurReportsRoundTripByteForByte) {
  for (const char* name : {"energy/energy-F16.json", "energy/energy-Q8_0.json", "energy/energy-Q4_K_M.json",
                           "energy/energy-F16-no-energy.json", "energy/energy-Q8_0-no-energy.json",
                           "energy/energy-Q4_K_M-no-energy.json"}) {
    const EnergyReport report = testing::read_golden_report(name);
    EXPECT_EQ(to_json(report).dump(2) + "\n", golden_text(name)) << name;
  }
}

TEST(EnergyReportJson, ReadsTheFieldsItsReadersUse) {
  const EnergyReport q8 = testing::read_golden_report("energy/energy-Q8_0.json");
  EXPECT_TRUE(q8.is_v1_2());
  EXPECT_EQ(q8.workload.precision, "Q8_0");
  EXPECT_EQ(q8.workload.weights, WeightsKind::trained_fixture);
  EXPECT_DOUBLE_EQ(q8.workload.params_b.value(), 0.004);
  EXPECT_EQ(q8.results.basis, ResultBasis::measured);
  EXPECT_DOUBLE_EQ(q8.results.energy_per_token_mj.value(), 1072.6171875);
  EXPECT_EQ(q8.statistics->n_failed, 1);
  EXPECT_EQ(q8.statistics->vs_fp16_energy_pct.n_pairs, 2);
  ASSERT_EQ(q8.trials->size(), 3u);
  EXPECT_EQ((*q8.trials)[1].status, "engine_failed");
  EXPECT_FALSE((*q8.trials)[1].decode.has_value());
  EXPECT_EQ(q8.engine->name, "llama.cpp");
  EXPECT_EQ(q8.environment->power_limit_w, 700.0);
  EXPECT_EQ(q8.baseline_precision(), "F16");
  EXPECT_FALSE(q8.is_baseline());
  // ΔE from the energies: (1072.6171875 − 1171.875) / 1171.875 = −8.47 %; the paired mean is −8.00 %.
  EXPECT_NEAR(q8.delta_from_energies().value(), -8.4699, 1e-3);
}

TEST(EnergyReportJson, Published11ReportReadsWhatItHas) {
  const EnergyReport r = testing::published_1_1_report();
  EXPECT_FALSE(r.is_v1_2());
  EXPECT_EQ(r.schema_version, energy_schema_1_1);
  EXPECT_EQ(r.system_under_test.gpu_arch, "ada");
  EXPECT_EQ(r.workload.precision, "NF4");
  EXPECT_EQ(r.workload.context_length, 2048);
  EXPECT_FALSE(r.workload.weights.has_value());
  EXPECT_DOUBLE_EQ(r.results.vs_fp16_energy_pct.value(), 31.12);
  EXPECT_EQ(r.measurement.sample_rate_hz, 10);
  EXPECT_FALSE(r.engine.has_value());
  EXPECT_FALSE(r.statistics.has_value());
  EXPECT_FALSE(r.trials.has_value());
  EXPECT_EQ(r.provenance->tool, "https://quantenergy.tech");
  EXPECT_EQ(r.software["packages"]["bitsandbytes"], "0.43.3");
  EXPECT_EQ(r.quality->corpus->bytes, 60600u);
  EXPECT_EQ(r.baseline_precision(), "FP16");
  // Written again, it keeps its 1.1 fields and invents none.
  const OrderedJson again = to_json(r);
  EXPECT_FALSE(again.contains("engine"));
  EXPECT_FALSE(again["results"].contains("net_energy_per_token_mj"));
  EXPECT_EQ(again["results"]["energy_per_token_mj"], 1827.749);
}

TEST(EnergyReportJson, WrongTypesAreErrorsNamingTheField) {
  struct Case {
    const char* pointer;
    OrderedJson value;
    const char* expected;
  };
  const std::vector<Case> cases = {
      {"/workload/params_b", "seven", "workload.params_b: expected a number, got string"},
      {"/results/basis", "guessed", "results.basis: 'guessed' is not a basis"},
      {"/workload/weights", "random", "workload.weights: 'random' is not a weights kind"},
      {"/schema_version", "ecocompute-energy/2.0", "schema_version: 'ecocompute-energy/2.0'"},
      {"/trials/1", 5, "trials[1]: expected an object, got number"},
      {"/trials/0/decode/tokens", 1.5, "trials[0].decode.tokens: expected a whole number"},
      {"/workload/model_size_bytes", -1, "workload.model_size_bytes: must not be negative"},
      {"/system_under_test", "H200", "system_under_test: expected an object"},
  };
  for (const Case& c : cases) {
    OrderedJson doc = golden_json("energy/energy-Q8_0.json");
    doc[OrderedJson::json_pointer(c.pointer)] = c.value;
    auto read = energy_report_from_json(doc, "bad.json");
    ASSERT_FALSE(read.has_value()) << c.pointer;
    EXPECT_EQ(read.error().code(), ErrorCode::invalid_input);
    EXPECT_NE(read.error().message().find(std::string("bad.json: ") + c.expected), std::string::npos)
        << read.error().message();
  }
  auto not_object = energy_report_from_json(OrderedJson::array(), "list.json");
  ASSERT_FALSE(not_object.has_value());
  EXPECT_NE(not_object.error().message().find("list.json: not a JSON object"), std::string::npos);
}

TEST(EnergyReportJson, WholeNumbersFollowDraft7) {
  // JSON Schema draft 7: a number with a zero fractional part is an integer, 2560.0 as much as 2560.
  OrderedJson doc = golden_json("schema/published_1_1.json");
  doc["results"]["tokens_generated"] = 2560.0;
  doc["quality"]["corpus"]["bytes"] = 60600.0;
  ASSERT_TRUE(doc["results"]["tokens_generated"].is_number_float());
  auto read = energy_report_from_json(doc, "float.json");
  ASSERT_TRUE(read.has_value()) << read.error().describe();
  EXPECT_EQ(read->results.tokens_generated, 2560);
  EXPECT_EQ(read->quality->corpus->bytes, 60600u);
  EXPECT_TRUE(to_json(*read)["results"]["tokens_generated"].is_number_integer());  // written as 2560
  OrderedJson golden = golden_json("energy/energy-Q8_0.json");
  golden["trials"][0]["decode"]["tokens"] = 2560.0;
  ASSERT_TRUE(energy_report_from_json(golden, "float.json").has_value());
  // A fraction is not a whole number, nor is a value beyond 64 bits.
  for (const auto& [value, expected] : {std::pair{OrderedJson(2560.5), "expected a whole number, got 2560.5"},
                                        std::pair{OrderedJson(1e300), "too large"}}) {
    doc["results"]["tokens_generated"] = value;
    auto bad = energy_report_from_json(doc, "fraction.json");
    ASSERT_FALSE(bad.has_value());
    EXPECT_NE(bad.error().message().find(std::string("fraction.json: results.tokens_generated: ") + expected),
              std::string::npos)
        << bad.error().message();
  }
}

TEST(EnergyReportJson, NullReadsAsAbsent) {
  OrderedJson doc = golden_json("schema/published_1_1.json");
  doc["workload"]["params_b"] = nullptr;
  doc["quality"]["corpus"] = nullptr;
  auto read = energy_report_from_json(doc, "nulls.json");
  ASSERT_TRUE(read.has_value()) << read.error().describe();
  EXPECT_FALSE(read->workload.params_b.has_value());
  EXPECT_FALSE(read->quality->corpus.has_value());
}

TEST(EnergyReportJson, NamesAndSpellings) {
  EXPECT_EQ(to_string(WeightsKind::trained_fixture), "trained-fixture");
  EXPECT_EQ(*parse_weights_kind("synthetic"), WeightsKind::synthetic);
  EXPECT_FALSE(parse_weights_kind("fake").has_value());
  EXPECT_EQ(*parse_result_basis("extrapolated"), ResultBasis::extrapolated);
  EXPECT_FALSE(parse_result_basis("estimated").has_value());
}

TEST(RunReportJson, RoundTripsByteForByte) {
  auto run = run_report_from_json(golden_json("energy/run.json"), "run.json");
  ASSERT_TRUE(run.has_value()) << run.error().describe();
  EXPECT_EQ(to_json(*run).dump(2) + "\n", golden_text("energy/run.json"));
  EXPECT_EQ(run->design.seed, "42");
  ASSERT_EQ(run->conditions.size(), 3u);
  EXPECT_EQ(run->conditions[1].headline->n_failed, 1);
  EXPECT_DOUBLE_EQ(run->conditions[2].headline->delta_ppl_pct.value(), 5.0);
}

TEST(RunReportJson, BatchLevelsAreWrittenOnlyWhenTheyVaryAndReadBack) {
  auto run = run_report_from_json(golden_json("energy/run.json"), "run.json");
  ASSERT_TRUE(run.has_value()) << run.error().describe();
  EXPECT_EQ(run->design.batches, (std::vector<std::int64_t>{1}));  // a batch-1 file has no batch fields
  EXPECT_EQ(run->conditions[0].batch, 1);
  run->design.batches = {1, 16};
  run->conditions[2].batch = 16;
  const OrderedJson written = to_json(*run);
  EXPECT_EQ(written["design"]["batches"], OrderedJson::parse("[1, 16]"));
  EXPECT_FALSE(written["conditions"][0].contains("batch"));
  EXPECT_EQ(written["conditions"][2]["batch"], 16);
  auto reread = run_report_from_json(written, "run.json");
  ASSERT_TRUE(reread.has_value()) << reread.error().describe();
  EXPECT_EQ(reread->design.batches, (std::vector<std::int64_t>{1, 16}));
  EXPECT_EQ(reread->conditions[2].batch, 16);
}

TEST(RunReportJson, HeadlineIsCopiedFromTheReport) {
  const ConditionHeadline h = headline_of(testing::read_golden_report("energy/energy-Q4_K_M.json"));
  EXPECT_EQ(h.n_trials, 3);
  EXPECT_DOUBLE_EQ(h.energy_per_token_mj.value(), 820.46875);
  EXPECT_EQ(h.vs_fp16_energy_pct.n_pairs, 3);
  EXPECT_TRUE(h.has_quality);
  EXPECT_DOUBLE_EQ(h.kld.value(), 0.02);
}

TEST(RunReportJson, AnEnergyReportIsNotARunSummary) {
  auto read = run_report_from_json(golden_json("energy/energy-F16.json"), "energy-F16.json");
  ASSERT_FALSE(read.has_value());
  EXPECT_NE(read.error().message().find("an energy.json report, not a run summary"), std::string::npos)
      << read.error().message();
}

}  // namespace
}  // namespace ecocompute::report
