// Tests of the energy.json schema and validator: valid 1.2 and published 1.1 files pass; each kind of
// broken file is refused with the JSON pointer of the problem.
#include "report/energy_schema.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "report/energy_report.hpp"
#include "report/environment_fingerprint.hpp"
#include "golden_reports.hpp"
#include "support/golden.hpp"

namespace ecocompute::report {
namespace {

using ecocompute::testing::golden_path;

// The golden 1.2 reports as parsed JSON: F16, Q8_0, Q4_K_M (condition 0, 1, 2).
OrderedJson valid_report(std::size_t condition = 2, bool with_energy = true) {
  return to_json(testing::golden_reports(with_energy).at(condition));
}

// Returns whether some problem sits at `pointer` and its message contains `fragment`.
bool has_problem(const std::vector<SchemaProblem>& problems, const std::string& pointer, const std::string& fragment) {
  for (const auto& p : problems) {
    if (p.pointer == pointer && p.message.find(fragment) != std::string::npos) return true;
  }
  return false;
}

TEST(EnergySchema, GoldenReportOfEveryConditionIsValid) {
  for (std::size_t c = 0; c < 3; ++c) {
    const auto problems = validate_energy_json(valid_report(c));
    EXPECT_TRUE(problems.empty()) << "condition " << c << ":\n" << describe(problems);
  }
}

TEST(EnergySchema, ReportWithoutEnergySourceIsValid) {
  const auto problems = validate_energy_json(valid_report(2, false));
  EXPECT_TRUE(problems.empty()) << describe(problems);
}

TEST(EnergySchema, PublishedStyle11FileIsValid) {
  auto problems = validate_energy_file(golden_path("schema/published_1_1.json"));
  ASSERT_TRUE(problems.has_value()) << problems.error().describe();
  EXPECT_TRUE(problems->empty()) << describe(*problems);
}

TEST(EnergySchema, Published11RulesStillApplyTo11Files) {
  auto doc = read_json_file(golden_path("schema/published_1_1.json"));
  ASSERT_TRUE(doc.has_value());
  (*doc)["workload"]["precision"] = "Q4_K_M";  // 1.1 knows FP16, NF4 and INT8 only
  (*doc)["results"].erase("basis");
  const auto problems = validate_energy_json(*doc);
  EXPECT_TRUE(has_problem(problems, "/workload/precision", "enum")) << describe(problems);
  EXPECT_TRUE(has_problem(problems, "/results", "basis")) << describe(problems);
}

TEST(EnergySchema, IntegralFloatsAreIntegersAsInDraft7) {
  // Draft 7 counts 2560.0 as an integer; 2560.5 is not one. Checked on the text, as `validate` reads it.
  auto doc = read_json_file(golden_path("schema/published_1_1.json"));
  ASSERT_TRUE(doc.has_value());
  std::string text = doc->dump();
  const std::string integral = "\"tokens_generated\":2560";
  ASSERT_NE(text.find(integral), std::string::npos);
  auto with = [&](const std::string& number) {
    std::string changed = text;
    changed.replace(changed.find(integral), integral.size(), "\"tokens_generated\":" + number);
    auto problems = validate_energy_text(changed, "tokens.json");
    EXPECT_TRUE(problems.has_value());
    return problems.value_or(std::vector<SchemaProblem>{});
  };
  EXPECT_TRUE(with("2560.0").empty()) << describe(with("2560.0"));
  EXPECT_TRUE(with("2.56e3").empty()) << describe(with("2.56e3"));
  EXPECT_TRUE(has_problem(with("2560.5"), "/results/tokens_generated", "type")) << describe(with("2560.5"));
  // The same in a 1.2 report, whose fingerprint is unaffected.
  OrderedJson ours = valid_report(1);
  ours["trials"][0]["decode"]["tokens"] = 2560.0;
  ours["measurement"]["iterations"] = 10.0;
  EXPECT_TRUE(validate_energy_json(ours).empty()) << describe(validate_energy_json(ours));
  ours["measurement"]["iterations"] = 10.5;
  EXPECT_TRUE(has_problem(validate_energy_json(ours), "/measurement/iterations", "type"))
      << describe(validate_energy_json(ours));
}

TEST(EnergySchema, WrongTypeIsReportedWithItsPointer) {
  OrderedJson doc = valid_report();
  doc["results"]["energy_per_token_mj"] = "820";
  doc["trials"][1]["decode"]["tokens"] = 2560.5;
  const auto problems = validate_energy_json(doc);
  EXPECT_TRUE(has_problem(problems, "/results/energy_per_token_mj", "type")) << describe(problems);
  EXPECT_TRUE(has_problem(problems, "/trials/1/decode/tokens", "type")) << describe(problems);
}

TEST(EnergySchema, MissingFieldsAreReported) {
  OrderedJson doc = valid_report();
  doc.erase("engine");
  doc["environment"].erase("gpu_uuid");
  const auto problems = validate_energy_json(doc);
  EXPECT_TRUE(has_problem(problems, "", "engine")) << describe(problems);
  EXPECT_TRUE(has_problem(problems, "/environment", "gpu_uuid")) << describe(problems);
}

TEST(EnergySchema, MeasuredBasisWithNullEnergyIsRefused) {
  OrderedJson doc = valid_report();
  doc["results"]["energy_per_token_mj"] = nullptr;
  const auto problems = validate_energy_json(doc);
  EXPECT_TRUE(has_problem(problems, "/results/energy_per_token_mj", "type")) << describe(problems);
}

TEST(EnergySchema, MeasuredBasisWithoutEnergySourceIsRefused) {
  OrderedJson doc = valid_report();
  doc["measurement_source"] = "none";
  const auto problems = validate_energy_json(doc);
  EXPECT_FALSE(problems.empty());
  EXPECT_TRUE(has_problem(problems, "/measurement_source", "enum")) << describe(problems);
}

TEST(EnergySchema, EstimatedBasisIsRefusedIn12) {
  OrderedJson doc = valid_report();
  doc["results"]["basis"] = "interpolated";
  const auto problems = validate_energy_json(doc);
  EXPECT_TRUE(has_problem(problems, "/results/basis", "enum")) << describe(problems);
}

TEST(EnergySchema, UnknownTopLevelBlockIsRefused) {
  OrderedJson doc = valid_report();
  doc["estimate"] = {{"delta_pct", -12.0}};  // a dataset number has no place in a measurement report
  const auto problems = validate_energy_json(doc);
  EXPECT_FALSE(problems.empty());
  EXPECT_TRUE(has_problem(problems, "", "additional")) << describe(problems);
}

TEST(EnergySchema, NonFiniteNumbersAreRefusedWithTheirPointer) {
  OrderedJson doc = valid_report();
  doc["results"]["energy_per_token_mj"] = std::numeric_limits<double>::quiet_NaN();
  doc["trials"][0]["decode"]["energy_j"] = std::numeric_limits<double>::infinity();
  const auto problems = validate_energy_json(doc);
  ASSERT_EQ(problems.size(), 2u) << describe(problems);
  EXPECT_EQ(problems[0].pointer, "/results/energy_per_token_mj");
  EXPECT_EQ(problems[1].pointer, "/trials/0/decode/energy_j");
}

TEST(EnergySchema, HugeNumbersAreRefused) {
  OrderedJson doc = valid_report();
  doc["results"]["avg_power_watts"] = 1e300;
  const auto problems = validate_energy_json(doc);
  EXPECT_TRUE(has_problem(problems, "/results/avg_power_watts", "1e+300 is outside [0, 100000] W")) << describe(problems);

  // A number beyond double range cannot even be read.
  const auto overflow = validate_energy_text(R"({"schema_version": "ecocompute-energy/1.2", "x": 1e400})", "big.json");
  ASSERT_FALSE(overflow.has_value());
  EXPECT_EQ(overflow.error().code(), ErrorCode::invalid_input);
  EXPECT_NE(overflow.error().message().find("big.json"), std::string::npos);
}

TEST(EnergySchema, DeepNestingIsRefusedBeforeParsing) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const auto result = validate_energy_text(deep, "deep.json");
  ASSERT_FALSE(result.has_value());
  EXPECT_NE(result.error().message().find("nested deeper than 32"), std::string::npos) << result.error().describe();

  // Brackets inside strings do not count.
  const std::string in_string = R"({"schema_version": ")" + std::string(100, '[') + R"("})";
  const auto shallow = validate_energy_text(in_string, "s.json");
  ASSERT_TRUE(shallow.has_value());
  EXPECT_TRUE(has_problem(*shallow, "/schema_version", "enum")) << describe(*shallow);
}

TEST(EnergySchema, DeepNestingBuiltInMemoryIsRefused) {
  OrderedJson doc = valid_report();
  OrderedJson nested = 1;
  for (int i = 0; i < 40; ++i) nested = OrderedJson::array({nested});
  doc["results"]["note"] = nested;
  const auto problems = validate_energy_json(doc);
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems[0].message.find("nested deeper"), std::string::npos) << describe(problems);
}

TEST(EnergySchema, UnknownSchemaVersionIsRefused) {
  OrderedJson doc = valid_report();
  doc["schema_version"] = "ecocompute-energy/9.9";
  EXPECT_TRUE(has_problem(validate_energy_json(doc), "/schema_version", "enum"));
  EXPECT_TRUE(has_problem(validate_energy_json(OrderedJson::array()), "", "type"));
}

TEST(EnergySchema, SyntheticWeightsCarryNoQuality) {
  OrderedJson doc = valid_report();
  doc["workload"]["weights"] = "synthetic";
  const auto problems = validate_energy_json(doc);
  EXPECT_FALSE(problems.empty());
  doc.erase("quality");
  const auto without = validate_energy_json(doc);
  EXPECT_TRUE(without.empty()) << describe(without);
}

TEST(EnergySchema, FingerprintMustMatchTheEnvironment) {
  OrderedJson doc = valid_report();
  doc["environment"]["power_limit_w"] = 600.0;  // the fingerprint was computed with 700 W
  const auto problems = validate_energy_json(doc);
  ASSERT_EQ(problems.size(), 1u) << describe(problems);
  EXPECT_EQ(problems[0].pointer, "/environment/fingerprint");
  doc["environment"]["fingerprint"] = environment_fingerprint(doc["environment"]);
  EXPECT_TRUE(validate_energy_json(doc).empty());
}

TEST(EnergySchema, UnreadableFilesAreErrorsNamingThePath) {
  auto missing = validate_energy_file("/nonexistent/energy.json");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code(), ErrorCode::not_found);
  EXPECT_NE(missing.error().message().find("/nonexistent/energy.json"), std::string::npos);

  auto folder = validate_energy_file(golden_path("schema"));
  ASSERT_FALSE(folder.has_value());
  EXPECT_EQ(folder.error().code(), ErrorCode::invalid_input);

  auto not_json = validate_energy_text("{\"schema_version\": ", "trunc.json");
  ASSERT_FALSE(not_json.has_value());
  EXPECT_EQ(not_json.error().code(), ErrorCode::invalid_input);
}

TEST(EnergySchema, DescribeWritesOneLinePerProblem) {
  EXPECT_EQ(describe({{"", "Missing required property 'engine'."}, {"/results/basis", "bad"}}),
            "/: Missing required property 'engine'.\n/results/basis: bad\n");
}

}  // namespace
}  // namespace ecocompute::report
