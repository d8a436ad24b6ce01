// Tests of building and writing a run's reports: golden files, hand-computed fields, failures kept.
#include "experiment/report_builder.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <fmt/format.h>
#include <filesystem>

#include "experiment/run_writer.hpp"
#include "report/energy_schema.hpp"
#include "sample_run.hpp"
#include "support/golden.hpp"

namespace ecocompute::experiment {
namespace {

using ecocompute::testing::expect_golden;
using testing::sample_context;
using testing::sample_run;

report::EnergyReport build(std::size_t condition, bool with_energy = true) {
  auto built = build_energy_report(sample_run(with_energy), condition, sample_context(with_energy));
  EXPECT_TRUE(built.has_value()) << (built ? "" : built.error().describe());
  return built.value_or(report::EnergyReport{});
}

OrderedJson build_json(std::size_t condition, bool with_energy = true) { return to_json(build(condition, with_energy)); }

std::string text(std::size_t condition, bool with_energy = true) { return build_json(condition, with_energy).dump(2) + "\n"; }

TEST(ReportBuilder, MatchesGoldenFiles) {
  expect_golden("energy/energy-F16.json", text(0));
  expect_golden("energy/energy-Q8_0.json", text(1));
  expect_golden("energy/energy-Q4_K_M.json", text(2));
  expect_golden("energy/energy-F16-no-energy.json", text(0, false));
  expect_golden("energy/energy-Q8_0-no-energy.json", text(1, false));
  expect_golden("energy/energy-Q4_K_M-no-energy.json", text(2, false));
}

TEST(ReportBuilder, EveryBuiltReportValidates) {
  for (bool with_energy : {true, false}) {
    for (std::size_t c = 0; c < 3; ++c) {
      const auto problems = report::validate_energy_json(build_json(c, with_energy));
      EXPECT_TRUE(problems.empty()) << report::describe(problems);
    }
  }
}

TEST(ReportBuilder, EnergyPerTokenIsTheMeanOverValidTrials) {
  const report::Results r = build(2).results;
  // Q4_K_M: 2100, 2181.6, 2019.6 J over 2560 tokens → 820.3125, 852.1875, 788.90625 mJ; mean 820.46875.
  EXPECT_DOUBLE_EQ(r.energy_per_token_mj.value(), 820.46875);
  EXPECT_EQ(r.basis, report::ResultBasis::measured);
  EXPECT_EQ(build(2).measurement_source, "direct-nvml");
  // total = 2100 + 2181.6 + 2019.6 = 6301.2 J; tokens 3 × 2560 = 7680; power = 6301.2 / 30 s = 210.04 W.
  EXPECT_DOUBLE_EQ(r.total_energy_joules.value(), 6301.2);
  EXPECT_EQ(r.tokens_generated, 7680);
  EXPECT_DOUBLE_EQ(r.avg_power_watts.value(), 6301.2 / 30.0);
  EXPECT_DOUBLE_EQ(r.throughput_tokens_per_s.value(), 256.0);
  // Baseline F16 mean: (3000 + 3030 + 2970) / 3 / 2560 × 1000 = 1171.875 mJ.
  EXPECT_DOUBLE_EQ(r.fp16_energy_per_token_mj.value(), 1171.875);
  // Net: (E − 100 W × 10 s) per token: (1100 + 1181.6 + 1019.6) / 3 / 2560 × 1000 = 429.84375 mJ.
  EXPECT_NEAR(r.net_energy_per_token_mj.value(), 429.84375, 1e-9);
  EXPECT_DOUBLE_EQ(r.idle_power_watts.value(), 100.0);
}

TEST(ReportBuilder, PairedDeltaAndItsConfidenceInterval) {
  const report::Statistics s = build(2).statistics.value();
  // Pairs −30, −28, −32 %: mean −30, SD 2, half-width t(0.975, 2) × 2/√3 = 4.302653 × 1.154701 = 4.968275.
  EXPECT_NEAR(s.vs_fp16_energy_pct.mean.value(), -30.0, 1e-9);
  EXPECT_NEAR(s.vs_fp16_energy_pct.sd.value(), 2.0, 1e-9);
  EXPECT_NEAR(s.vs_fp16_energy_pct.ci95_low.value(), -34.968275, 1e-5);
  EXPECT_NEAR(s.vs_fp16_energy_pct.ci95_high.value(), -25.031725, 1e-5);
  EXPECT_EQ(s.vs_fp16_energy_pct.n_pairs, 3);
  EXPECT_EQ(s.n_trials, 3);
  EXPECT_EQ(s.n_failed, 0);
}

TEST(ReportBuilder, FailedTrialIsListedAndLeftOutOfTheStatistics) {
  const report::EnergyReport r = build(1);
  EXPECT_EQ(r.statistics->n_trials, 2);
  EXPECT_EQ(r.statistics->n_failed, 1);
  // Pairs −10 and −6 %: mean −8; half-width t(0.975, 1) × √8/√2 = 12.706205 × 2 = 25.41241.
  EXPECT_NEAR(r.statistics->vs_fp16_energy_pct.mean.value(), -8.0, 1e-9);
  EXPECT_NEAR(r.statistics->vs_fp16_energy_pct.ci95_high.value(), 17.41241, 1e-4);
  ASSERT_EQ(r.trials->size(), 3u);
  const report::TrialReport& failed = (*r.trials)[1];
  EXPECT_EQ(failed.status, "engine_failed");
  EXPECT_EQ(failed.reason, "decode failed: out of memory");
  EXPECT_FALSE(failed.decode.has_value());
  EXPECT_TRUE(failed.prefill.has_value());
}

TEST(ReportBuilder, InterruptedAndNeverRunTrialsAreNotCountedAsFailed) {
  protocol::RunResult run = sample_run();
  // Q4_K_M's last trial interrupted by Ctrl-C, and Q8_0's second never run.
  run.trials[8].status = protocol::TrialStatus::cancelled;
  run.trials[8].reason = "interrupted during the decode window; the unfinished window was discarded";
  run.trials[8].decode.reset();
  run.trials[4].status = protocol::TrialStatus::not_run;
  const report::EnergyReport q4 = *build_energy_report(run, 2, sample_context());
  EXPECT_EQ(q4.statistics->n_trials, 2);
  EXPECT_EQ(q4.statistics->n_failed, 0);
  EXPECT_EQ(q4.statistics->n_cancelled, 1);
  const report::EnergyReport q8 = *build_energy_report(run, 1, sample_context());
  EXPECT_EQ(q8.statistics->n_failed, 0);
  EXPECT_EQ(q8.statistics->n_cancelled, 1);
  EXPECT_EQ((*q4.trials)[2].status, "cancelled");
  EXPECT_TRUE(report::validate_energy_json(to_json(q4)).empty());
}

TEST(ReportBuilder, ABaselineWhoseTrialsAllThrottledSaysSoAndNotThatNoSourceWasRead) {
  // As at 14 B F16 on the H200: the energy counter read every window, but each baseline trial hit the
  // power cap and was left out of the statistics (without --accept-throttled).
  protocol::RunResult run = sample_run();
  for (protocol::TrialResult& t : run.trials) {
    if (t.condition != 0) continue;
    t.status = protocol::TrialStatus::throttled;
    t.reason = "throttled: sw_power_cap (decode)";
  }
  run.summaries = protocol::summarize_conditions(run.conditions, run.trials);
  run.comparisons = protocol::compare_paired(run.conditions, run.trials);
  const report::EnergyReport f16 = *build_energy_report(run, 0, sample_context());
  EXPECT_EQ(f16.results.basis, report::ResultBasis::unavailable);
  EXPECT_FALSE(f16.results.energy_per_token_mj.has_value());
  EXPECT_EQ(f16.statistics->n_failed, 3);
  EXPECT_NE(f16.results.note->find("No valid trial: 3 of 3 trials failed"), std::string::npos) << *f16.results.note;
  EXPECT_EQ(f16.results.note->find("No energy source"), std::string::npos) << *f16.results.note;
  const report::EnergyReport q4 = *build_energy_report(run, 2, sample_context());
  EXPECT_EQ(q4.results.basis, report::ResultBasis::measured);
  EXPECT_DOUBLE_EQ(q4.results.energy_per_token_mj.value(), 820.46875);  // its own windows are still measured
  EXPECT_FALSE(q4.results.vs_fp16_energy_pct.has_value());
  EXPECT_NE(q4.results.note->find("the baseline has no valid trial to pair with"), std::string::npos);
  EXPECT_TRUE(report::validate_energy_json(to_json(f16)).empty());
  EXPECT_TRUE(report::validate_energy_json(to_json(q4)).empty());
}

TEST(ReportBuilder, ACountedThrottledBaselineIsNamedInEveryReportItIsComparedIn) {
  // --accept-throttled: the baseline's trials ran throttled and are in the statistics, flagged.
  protocol::RunResult run = sample_run();
  run.design.accept_throttled = true;
  for (protocol::TrialResult& t : run.trials) {
    if (t.condition != 0) continue;
    t.throttled = true;
    t.reason = "throttled, accepted by the design: sw_power_cap (decode)";
  }
  const report::EnergyReport q4 = *build_energy_report(run, 2, sample_context());
  EXPECT_NE(q4.results.note->find("Throttled trials counted"), std::string::npos) << *q4.results.note;
  EXPECT_NE(q4.results.note->find("F16 (baseline) 3 of 3"), std::string::npos) << *q4.results.note;
  const report::EnergyReport f16 = *build_energy_report(run, 0, sample_context());
  EXPECT_NE(f16.results.note->find("F16 3 of 3"), std::string::npos) << *f16.results.note;
  EXPECT_EQ(f16.results.note->find("(baseline)"), std::string::npos) << *f16.results.note;
  // Without throttled trials the note has no such sentence.
  EXPECT_EQ(build(2).results.note->find("Throttled"), std::string::npos);
}

TEST(ReportBuilder, ThroughputIsTheMeanOfTheTrialsWithItsSpread) {
  protocol::RunResult run = sample_run();
  // One slow Q4_K_M trial: 2560 tokens in 40 s instead of 10 s (64 instead of 256 tok/s).
  run.trials[8].decode->measurement.duration = Seconds{40.0};
  run.summaries = protocol::summarize_conditions(run.conditions, run.trials);
  const report::EnergyReport q4 = *build_energy_report(run, 2, sample_context());
  // Mean of 256, 256, 64 = 192 (tokens over time pooled would give 7680 / 60 = 128).
  EXPECT_DOUBLE_EQ(q4.results.throughput_tokens_per_s.value(), 192.0);
  const report::Spread& t = *q4.statistics->throughput_tokens_per_s;
  EXPECT_DOUBLE_EQ(t.mean.value(), 192.0);
  EXPECT_NEAR(t.sd.value(), std::sqrt((64.0 * 64 * 2 + 128.0 * 128) / 2), 1e-9);  // deviations 64, 64, −128
  ASSERT_TRUE(t.ci95_low && t.ci95_high);
  EXPECT_LT(*t.ci95_low, 192.0);
}

TEST(ReportBuilder, BaselineHasNoComparisonWithItself) {
  const report::EnergyReport r = build(0);
  EXPECT_FALSE(r.results.vs_fp16_energy_pct.has_value());
  EXPECT_EQ(r.statistics->vs_fp16_energy_pct.n_pairs, 0);
  EXPECT_DOUBLE_EQ(r.results.energy_per_token_mj.value(), 1171.875);
  EXPECT_FALSE(r.quality->kld.has_value());
  EXPECT_TRUE(r.is_baseline());
}

TEST(ReportBuilder, WithoutEnergySourceEveryEnergyFigureIsAbsent) {
  const report::EnergyReport r = build(2, false);
  EXPECT_EQ(r.results.basis, report::ResultBasis::unavailable);
  EXPECT_EQ(r.measurement_source, "none");
  for (const std::optional<double>* figure :
       {&r.results.energy_per_token_mj, &r.results.total_energy_joules, &r.results.avg_power_watts,
        &r.results.fp16_energy_per_token_mj, &r.results.vs_fp16_energy_pct, &r.results.net_energy_per_token_mj,
        &r.results.idle_power_watts}) {
    EXPECT_FALSE(figure->has_value());
  }
  EXPECT_DOUBLE_EQ(r.results.throughput_tokens_per_s.value(), 256.0);  // still measured
  EXPECT_FALSE(r.statistics->energy_per_token_mj.mean.has_value());
  EXPECT_TRUE(r.quality.has_value());
  EXPECT_EQ(r.system_under_test.gpu, "none");
  EXPECT_EQ(r.system_under_test.accelerator_count, 0);
  // Absent figures are written as null: the 1.2 schema requires the keys.
  EXPECT_TRUE(build_json(2, false)["results"]["energy_per_token_mj"].is_null());
}

TEST(ReportBuilder, SyntheticWeightsHaveNoQualityBlock) {
  ReportContext context = sample_context();
  context.weights = report::WeightsKind::synthetic;
  auto r = build_energy_report(sample_run(), 2, context);
  ASSERT_TRUE(r.has_value());
  EXPECT_FALSE(r->quality.has_value());
  EXPECT_EQ(r->workload.weights, report::WeightsKind::synthetic);
  EXPECT_TRUE(report::validate_energy_json(to_json(*r)).empty());
}

TEST(ReportBuilder, UncertaintyBudget) {
  const report::Uncertainty u = build(2).uncertainty.value();
  // Edge bound 2 × P × 0.1 s over E = 0.2 / duration: prefill windows (2 s) give 10 %, the largest.
  EXPECT_NEAR(u.edge_error_pct_max.value(), 10.0, 1e-9);
  EXPECT_NEAR(u.trace_vs_counter_pct_max.value(), 0.2, 1e-12);
  EXPECT_NEAR(u.counter_update_period_s.value(), 0.1, 1e-12);
}

TEST(ReportBuilder, NeverLoadedConditionHasNoReport) {
  protocol::RunResult run = sample_run();
  run.setups[1].loaded = false;
  run.setups[1].failure = "unknown GGUF type";
  auto r = build_energy_report(run, 1, sample_context());
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::invalid_argument);
  EXPECT_NE(r.error().message().find("unknown GGUF type"), std::string::npos);
}

TEST(ReportBuilder, WriteRunReportsWritesEveryReportAndTheSummary) {
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

  auto reread = report::validate_energy_file(dir / "energy-Q4_K_M.json");
  ASSERT_TRUE(reread.has_value());
  EXPECT_TRUE(reread->empty()) << report::describe(*reread);
  // What was written reads back as what the writer held.
  auto typed = report::read_energy_report(dir / "energy-Q4_K_M.json");
  ASSERT_TRUE(typed.has_value()) << typed.error().describe();
  EXPECT_EQ(to_json(*typed), to_json(*(*written)[2].report));

  auto summary = read_json_file(dir / "run.json");
  ASSERT_TRUE(summary.has_value());
  EXPECT_EQ((*summary)["design"]["seed"], "42");
  EXPECT_EQ((*summary)["order"].size(), 9u);
  EXPECT_TRUE((*summary)["conditions"][1]["report"].is_null());
  EXPECT_EQ((*summary)["conditions"][2]["report"], "energy-Q4_K_M.json");
  std::filesystem::remove_all(dir);
}

TEST(ReportBuilder, RunSummaryMatchesGoldenFile) {
  const protocol::RunResult run = sample_run();
  const ReportContext context = sample_context();
  std::vector<WrittenReport> reports;
  for (std::size_t c = 0; c < 3; ++c) {
    WrittenReport r;
    r.condition = c;
    r.label = run.conditions[c].label();
    r.path = report_file_name(run.conditions[c]);
    r.report = *build_energy_report(run, c, context);
    reports.push_back(r);
  }
  expect_golden("energy/run.json", to_json(build_run_report(run, context, reports)).dump(2) + "\n");
}

TEST(ReportBuilder, TheRunSummaryNamesAcceptedThrottlingOnlyWhenTheDesignAskedForIt) {
  protocol::RunResult run = sample_run();
  const ReportContext context = sample_context();
  EXPECT_FALSE(to_json(build_run_report(run, context, {}))["design"].contains("accept_throttled"));
  run.design.accept_throttled = true;
  const OrderedJson summary = to_json(build_run_report(run, context, {}));
  EXPECT_EQ(summary["design"]["accept_throttled"], true);
  auto reread = report::run_report_from_json(summary, "run.json");
  ASSERT_TRUE(reread.has_value()) << reread.error().describe();
  EXPECT_TRUE(reread->design.accept_throttled);
}

TEST(ReportBuilder, InvalidReportIsNotWritten) {
  const auto path = std::filesystem::temp_directory_path() / ("ecocompute-invalid-" + std::to_string(::getpid()) + ".json");
  report::EnergyReport r = build(2);
  r.results.energy_per_token_mj = -5.0;
  auto result = report::write_energy_report(path, r);
  ASSERT_FALSE(result.has_value());
  EXPECT_NE(result.error().message().find("/results/energy_per_token_mj"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(ReportBuilder, NamesAndSpellings) {
  EXPECT_EQ(measurement_source("nvml-energy-counter"), "direct-nvml");
  EXPECT_EQ(measurement_source("rapl"), "rapl");
  EXPECT_EQ(measurement_source("none"), "none");
  protocol::Condition c{0, "F16", true, 512};
  EXPECT_EQ(report_file_name(c), "energy-F16-p512.json");
  // Batch 1 keeps its old name even when batch is a level; a larger batch adds -b<B>.
  EXPECT_EQ(report_file_name(protocol::Condition{0, "F16", true, 0, 1, true}), "energy-F16.json");
  EXPECT_EQ(report_file_name(protocol::Condition{0, "Q8_0", false, 0, 16, true}), "energy-Q8_0-b16.json");
  EXPECT_EQ(report_file_name(protocol::Condition{0, "Q8_0", false, 512, 4, false}), "energy-Q8_0-p512-b4.json");
}

TEST(ReportBuilder, ABatchedConditionIsOfflineWithItsBatchSizeAndEnergyPerSequence) {
  protocol::RunResult run = sample_run();
  for (protocol::Condition& c : run.conditions) c.batch = 4;
  auto built = build_energy_report(run, 2, sample_context());
  ASSERT_TRUE(built.has_value()) << built.error().describe();
  EXPECT_EQ(built->workload.batch_size, 4);
  EXPECT_EQ(built->scenario, "Offline");
  ASSERT_TRUE(built->scenario_note.has_value());
  EXPECT_NE(built->scenario_note->find("Batch 4"), std::string::npos) << *built->scenario_note;
  ASSERT_TRUE(built->measurement.iterations_note.has_value());
  EXPECT_NE(built->measurement.iterations_note->find("in each of 4 parallel sequences"), std::string::npos);
  // The baseline at the same batch is found: the paired ΔE is there as at batch 1.
  EXPECT_EQ(built->results.vs_fp16_energy_pct, build(2).results.vs_fp16_energy_pct);
  // 820.46875 mJ per token × tokens per sequence.
  const std::string per_sequence = fmt::format("energy per sequence of {} tokens: {:.4g} J", run.design.tokens_per_iteration,
                                               820.46875 * static_cast<double>(run.design.tokens_per_iteration) / 1000.0);
  ASSERT_TRUE(built->results.note.has_value());
  EXPECT_NE(built->results.note->find(per_sequence), std::string::npos) << *built->results.note;
  const auto problems = report::validate_energy_json(to_json(*built));
  EXPECT_TRUE(problems.empty()) << report::describe(problems);
  // Batch 1 stays SingleStream.
  EXPECT_EQ(build(2).scenario, "SingleStream");
  EXPECT_EQ(build(2).workload.batch_size, 1);
}

}  // namespace
}  // namespace ecocompute::experiment
