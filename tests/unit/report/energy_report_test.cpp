// Tests of the energy.json builder and writer: golden files, hand-computed fields, failures kept.
#include "report/energy_report.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "report/energy_schema.hpp"
#include "golden.hpp"
#include "sample_run.hpp"

namespace ecocompute::report {
namespace {

using testing::expect_golden;
using testing::sample_context;
using testing::sample_run;

OrderedJson build(std::size_t condition, bool with_energy = true) {
  auto doc = build_energy_json(sample_run(with_energy), condition, sample_context(with_energy));
  EXPECT_TRUE(doc.has_value()) << (doc ? "" : doc.error().describe());
  return doc.value_or(OrderedJson());
}

TEST(EnergyReport, MatchesGoldenFiles) {
  expect_golden("energy/energy-F16.json", build(0).dump(2) + "\n");
  expect_golden("energy/energy-Q8_0.json", build(1).dump(2) + "\n");
  expect_golden("energy/energy-Q4_K_M.json", build(2).dump(2) + "\n");
  expect_golden("energy/energy-Q4_K_M-no-energy.json", build(2, false).dump(2) + "\n");
}

TEST(EnergyReport, EnergyPerTokenIsTheMeanOverValidTrials) {
  const OrderedJson doc = build(2);
  // Q4_K_M: 2100, 2181.6, 2019.6 J over 2560 tokens → 820.3125, 852.1875, 788.90625 mJ; mean 820.46875.
  EXPECT_DOUBLE_EQ(doc["results"]["energy_per_token_mj"].get<double>(), 820.46875);
  EXPECT_EQ(doc["results"]["basis"], "measured");
  EXPECT_EQ(doc["measurement_source"], "direct-nvml");
  // total = 2100 + 2181.6 + 2019.6 = 6301.2 J; tokens 3 × 2560 = 7680; power = 6301.2 / 30 s = 210.04 W.
  EXPECT_DOUBLE_EQ(doc["results"]["total_energy_joules"].get<double>(), 6301.2);
  EXPECT_EQ(doc["results"]["tokens_generated"], 7680);
  EXPECT_DOUBLE_EQ(doc["results"]["avg_power_watts"].get<double>(), 6301.2 / 30.0);
  EXPECT_DOUBLE_EQ(doc["results"]["throughput_tokens_per_s"].get<double>(), 256.0);
  // Baseline F16 mean: (3000 + 3030 + 2970) / 3 / 2560 × 1000 = 1171.875 mJ.
  EXPECT_DOUBLE_EQ(doc["results"]["fp16_energy_per_token_mj"].get<double>(), 1171.875);
  // Net: (E − 100 W × 10 s) per token: (1100 + 1181.6 + 1019.6) / 3 / 2560 × 1000 = 429.84375 mJ.
  EXPECT_NEAR(doc["results"]["net_energy_per_token_mj"].get<double>(), 429.84375, 1e-9);
  EXPECT_DOUBLE_EQ(doc["results"]["idle_power_watts"].get<double>(), 100.0);
}

TEST(EnergyReport, PairedDeltaAndItsConfidenceInterval) {
  const OrderedJson stats = build(2)["statistics"];
  // Pairs −30, −28, −32 %: mean −30, SD 2, half-width t(0.975, 2) × 2/√3 = 4.302653 × 1.154701 = 4.968275.
  EXPECT_NEAR(stats["vs_fp16_energy_pct"]["mean"].get<double>(), -30.0, 1e-9);
  EXPECT_NEAR(stats["vs_fp16_energy_pct"]["sd"].get<double>(), 2.0, 1e-9);
  EXPECT_NEAR(stats["vs_fp16_energy_pct"]["ci95_low"].get<double>(), -34.968275, 1e-5);
  EXPECT_NEAR(stats["vs_fp16_energy_pct"]["ci95_high"].get<double>(), -25.031725, 1e-5);
  EXPECT_EQ(stats["vs_fp16_energy_pct"]["n_pairs"], 3);
  EXPECT_EQ(stats["n_trials"], 3);
  EXPECT_EQ(stats["n_failed"], 0);
}

TEST(EnergyReport, FailedTrialIsListedAndLeftOutOfTheStatistics) {
  const OrderedJson doc = build(1);
  EXPECT_EQ(doc["statistics"]["n_trials"], 2);
  EXPECT_EQ(doc["statistics"]["n_failed"], 1);
  // Pairs −10 and −6 %: mean −8; half-width t(0.975, 1) × √8/√2 = 12.706205 × 2 = 25.41241.
  EXPECT_NEAR(doc["statistics"]["vs_fp16_energy_pct"]["mean"].get<double>(), -8.0, 1e-9);
  EXPECT_NEAR(doc["statistics"]["vs_fp16_energy_pct"]["ci95_high"].get<double>(), 17.41241, 1e-4);
  ASSERT_EQ(doc["trials"].size(), 3u);
  const OrderedJson& failed = doc["trials"][1];
  EXPECT_EQ(failed["status"], "engine_failed");
  EXPECT_EQ(failed["reason"], "decode failed: out of memory");
  EXPECT_TRUE(failed["decode"].is_null());
  EXPECT_TRUE(failed["prefill"].is_object());
}

TEST(EnergyReport, BaselineHasNoComparisonWithItself) {
  const OrderedJson doc = build(0);
  EXPECT_TRUE(doc["results"]["vs_fp16_energy_pct"].is_null());
  EXPECT_EQ(doc["statistics"]["vs_fp16_energy_pct"]["n_pairs"], 0);
  EXPECT_DOUBLE_EQ(doc["results"]["energy_per_token_mj"].get<double>(), 1171.875);
  EXPECT_TRUE(doc["quality"]["kld"].is_null());
}

TEST(EnergyReport, WithoutEnergySourceEveryEnergyFigureIsNull) {
  const OrderedJson doc = build(2, false);
  EXPECT_EQ(doc["results"]["basis"], "unavailable");
  EXPECT_EQ(doc["measurement_source"], "none");
  for (const char* key : {"energy_per_token_mj", "total_energy_joules", "avg_power_watts", "fp16_energy_per_token_mj",
                          "vs_fp16_energy_pct", "net_energy_per_token_mj", "idle_power_watts"}) {
    EXPECT_TRUE(doc["results"][key].is_null()) << key;
  }
  EXPECT_DOUBLE_EQ(doc["results"]["throughput_tokens_per_s"].get<double>(), 256.0);  // still measured
  EXPECT_TRUE(doc["statistics"]["energy_per_token_mj"]["mean"].is_null());
  EXPECT_TRUE(doc.contains("quality"));
  EXPECT_EQ(doc["system_under_test"]["gpu"], "none");
  EXPECT_EQ(doc["system_under_test"]["accelerator_count"], 0);
}

TEST(EnergyReport, SyntheticWeightsHaveNoQualityBlock) {
  RunContext context = sample_context();
  context.weights = WeightsKind::synthetic;
  auto doc = build_energy_json(sample_run(), 2, context);
  ASSERT_TRUE(doc.has_value());
  EXPECT_FALSE(doc->contains("quality"));
  EXPECT_EQ((*doc)["workload"]["weights"], "synthetic");
  EXPECT_TRUE(validate_energy_json(*doc).empty());
}

TEST(EnergyReport, UncertaintyBudget) {
  const OrderedJson u = build(2)["uncertainty"];
  // Edge bound 2 × P × 0.1 s over E = 0.2 / duration: prefill windows (2 s) give 10 %, the largest.
  EXPECT_NEAR(u["edge_error_pct_max"].get<double>(), 10.0, 1e-9);
  EXPECT_NEAR(u["trace_vs_counter_pct_max"].get<double>(), 0.2, 1e-12);
  EXPECT_NEAR(u["counter_update_period_s"].get<double>(), 0.1, 1e-12);
}

TEST(EnergyReport, NeverLoadedConditionHasNoReport) {
  protocol::RunResult run = sample_run();
  run.setups[1].loaded = false;
  run.setups[1].failure = "unknown GGUF type";
  auto doc = build_energy_json(run, 1, sample_context());
  ASSERT_FALSE(doc.has_value());
  EXPECT_EQ(doc.error().code(), ErrorCode::invalid_argument);
  EXPECT_NE(doc.error().message().find("unknown GGUF type"), std::string::npos);
}

TEST(EnergyReport, WriteRunReportsWritesEveryReportAndTheSummary) {
  const auto dir = std::filesystem::temp_directory_path() / ("ecocompute-report-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  protocol::RunResult run = sample_run();
  run.setups[1].loaded = false;
  run.setups[1].failure = "unknown GGUF type";
  auto written = write_run_reports(run, sample_context(), dir);
  ASSERT_TRUE(written.has_value()) << written.error().describe();
  ASSERT_EQ(written->size(), 3u);
  EXPECT_TRUE(std::filesystem::exists(dir / "energy-F16.json"));
  EXPECT_FALSE(std::filesystem::exists(dir / "energy-Q8_0.json"));
  EXPECT_TRUE(std::filesystem::exists(dir / "energy-Q4_K_M.json"));
  EXPECT_NE((*written)[1].failure.find("unknown GGUF type"), std::string::npos);

  auto reread = validate_energy_file(dir / "energy-Q4_K_M.json");
  ASSERT_TRUE(reread.has_value());
  EXPECT_TRUE(reread->empty()) << describe(*reread);

  auto summary = read_json_file(dir / "run.json");
  ASSERT_TRUE(summary.has_value());
  EXPECT_EQ((*summary)["design"]["seed"], "42");
  EXPECT_EQ((*summary)["order"].size(), 9u);
  EXPECT_TRUE((*summary)["conditions"][1]["report"].is_null());
  EXPECT_EQ((*summary)["conditions"][2]["report"], "energy-Q4_K_M.json");
  std::filesystem::remove_all(dir);
}

TEST(EnergyReport, RunSummaryMatchesGoldenFile) {
  const protocol::RunResult run = sample_run();
  const RunContext context = sample_context();
  std::vector<WrittenReport> reports;
  for (std::size_t c = 0; c < 3; ++c) {
    WrittenReport r;
    r.condition = c;
    r.label = run.conditions[c].label();
    r.path = report_file_name(run.conditions[c]);
    r.document = *build_energy_json(run, c, context);
    reports.push_back(r);
  }
  expect_golden("energy/run.json", build_run_summary(run, context, reports).dump(2) + "\n");
}

TEST(EnergyReport, InvalidDocumentIsNotWritten) {
  const auto path = std::filesystem::temp_directory_path() / ("ecocompute-invalid-" + std::to_string(::getpid()) + ".json");
  OrderedJson doc = build(2);
  doc["results"]["energy_per_token_mj"] = "a lot";
  auto result = write_validated_energy_json(path, doc);
  ASSERT_FALSE(result.has_value());
  EXPECT_NE(result.error().message().find("/results/energy_per_token_mj"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(EnergyReport, NamesAndSpellings) {
  EXPECT_EQ(measurement_source("nvml-energy-counter"), "direct-nvml");
  EXPECT_EQ(measurement_source("rapl"), "rapl");
  EXPECT_EQ(measurement_source("none"), "none");
  EXPECT_EQ(to_string(WeightsKind::trained_fixture), "trained-fixture");
  EXPECT_EQ(*parse_weights_kind("synthetic"), WeightsKind::synthetic);
  EXPECT_FALSE(parse_weights_kind("fake").has_value());
  protocol::Condition c{0, "F16", true, 512};
  EXPECT_EQ(report_file_name(c), "energy-F16-p512.json");
}

}  // namespace
}  // namespace ecocompute::report
