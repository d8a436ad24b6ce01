// Tests of the grader: our rules (the decision model's predictive interval, the report's own session
// left out) and the published checker's (on its own test vectors and the site's curves.json).
#include "decide/grader.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include <filesystem>

#include "data/published_reference.hpp"
#include "decide/estimate.hpp"
#include "report/energy_report.hpp"
#include "support/data_paths.hpp"
#include "support/published_evidence.hpp"
#include "util/file_io.hpp"

namespace ecocompute::decide {
namespace {

namespace fs = std::filesystem;
using ::ecocompute::testing::kPublishedData;
using ::ecocompute::testing::published_evidence;

const fs::path kFixtures = fs::path(ECOCOMPUTE_SOURCE_DIR) / "tests" / "unit" / "data" / "fixtures";

// A 1.1 report of one measured point: ΔE stated as `stated` (default: what the energies give).
report::EnergyReport measured(const std::string& arch, double params_b, const std::string& precision, double energy, double fp16,
                              std::optional<double> stated = std::nullopt) {
  report::EnergyReport r;
  r.schema_version = std::string(report::energy_schema_1_1);
  r.measurement_source = "direct-nvml";
  r.system_under_test.gpu = "RTX 4090";
  r.system_under_test.gpu_arch = arch;
  r.workload.model_name = "m";
  r.workload.params_b = params_b;
  r.workload.precision = precision;
  r.results.basis = report::ResultBasis::measured;
  r.results.energy_per_token_mj = energy;
  r.results.fp16_energy_per_token_mj = fp16;
  r.results.vs_fp16_energy_pct = stated ? *stated : (energy - fp16) / fp16 * 100.0;
  return r;
}

// The ada INT8 1.1 B report: ΔE +137.9 % (the 2026-08-06 session's anchor) or +301.6 % (the
// 2026-08-19 session's measurement), stated and in its energies.
report::EnergyReport ada_int8_1p1(double delta_pct) { return measured("ada", 1.1, "INT8", 1000.0 + 10.0 * delta_pct, 1000.0); }

data::PublishedReference shipped_published_reference() {
  auto reference = data::read_published_reference(kPublishedData);
  EXPECT_TRUE(reference) << reference.error().describe();
  return reference.value_or(data::PublishedReference{});
}

bool contains(const std::string& text, const std::string& fragment) { return text.find(fragment) != std::string::npos; }

TEST(Grader, OurRulesGradeAgainstTheIntervalEstimateAnswersWith) {
  // One question, one band: a report of a session the evidence does not hold is graded against
  // exactly the interval `estimate` gives for its GPU, engine, format, size and batch.
  const Evidence& evidence = published_evidence();
  EstimateRequest question;
  question.params_b = 1.1;
  question.gpu = "RTX 4090";
  question.precision = "INT8";
  auto answer = estimate(question, evidence);
  ASSERT_TRUE(answer) << answer.error().describe();
  const double low = *answer->ci_low_pct, high = *answer->ci_high_pct;
  const GradeResult middle = grade_report(ada_int8_1p1((low + high) / 2), evidence);
  EXPECT_EQ(middle.grade, Grade::inside) << middle.reason;
  EXPECT_EQ(middle.reference, "model");
  EXPECT_DOUBLE_EQ(*middle.band_low_pct, low);
  EXPECT_DOUBLE_EQ(*middle.band_high_pct, high);
  EXPECT_DOUBLE_EQ(*middle.expected_delta_pct, *answer->delta_pct);
  EXPECT_EQ(middle.reference_basis->basis, answer->basis);
  const GradeResult above = grade_report(ada_int8_1p1(high + 5), evidence);
  EXPECT_EQ(above.grade, Grade::outside) << above.reason;
  EXPECT_EQ(above.exit_code(), 1);
  const std::string text = to_text(middle);
  EXPECT_TRUE(contains(text, "rules: ecocompute (ours)")) << text;
  EXPECT_TRUE(contains(text, "The published checker (--rules published)")) << text;
  EXPECT_EQ(Json(middle)["rules"], "ecocompute");
  EXPECT_EQ(Json(grade_report_published(ada_int8_1p1(301.6), shipped_published_reference()))["rules"], "published");
}

TEST(Grader, AReportOfAStoredSessionIsGradedWithoutItsOwnSession) {
  // The 2026-11-29 H200 report is part of the shipped evidence: graded against the model of every
  // other session, not against itself.
  const Evidence& evidence = published_evidence();
  auto report = report::read_energy_report(fs::path(ECOCOMPUTE_SOURCE_DIR) / "data/sessions/h200-2026-11-29-llama3-8b-synthetic/energy-Q4_0.json");
  ASSERT_TRUE(report) << report.error().describe();
  const GradeResult g = grade_report(*report, evidence);
  EXPECT_NE(g.exit_code(), 2) << g.reason;
  EXPECT_TRUE(contains(g.reason, "the report's own session left out")) << g.reason;
  for (const GradeAnchor& a : g.anchors) { EXPECT_FALSE(contains(a.label, "GPU-1e49a711")) << a.label; }
  // Its band is the interval a held-out session's answer gets: scaled by the calibration of such answers.
  ASSERT_NE(evidence.calibration, nullptr);
  Evidence uncalibrated = evidence;
  uncalibrated.calibration = nullptr;
  const GradeResult raw = grade_report(*report, uncalibrated);
  ASSERT_TRUE(g.band_low_pct && raw.band_low_pct && g.reference_basis);
  const auto log_half = [](const GradeResult& r) { return (std::log1p(*r.band_high_pct / 100) - std::log1p(*r.band_low_pct / 100)) / 2; };
  const ClassFactor* c = evidence.calibration->for_answer(g.reference_basis->basis, Extent::card);
  ASSERT_TRUE(c && c->factor);
  EXPECT_NEAR(log_half(g), *c->factor * log_half(raw), 1e-9);
  // Synthetic weights carry no quality: the grade states the format's cost for the real model of that
  // shape ("synthetic Llama-3-8B shape"), from llama.cpp's published table, with that basis.
  ASSERT_TRUE(g.quality);
  EXPECT_EQ(g.quality->basis, data::QualityBasis::published);
  EXPECT_EQ(g.quality->precision, "Q4_0");
  EXPECT_TRUE(contains(g.quality->basis_text, "LLaMA 3 8B")) << g.quality->basis_text;
  EXPECT_TRUE(contains(to_text(g), "quality: Q4_0: ΔPPL")) << to_text(g);
  EXPECT_EQ(Json(g)["quality_cost"]["basis"], "published");
}

TEST(Grader, AReportsOwnProbeOnRealWeightsIsItsQualityCost) {
  report::EnergyReport r = ada_int8_1p1(301.6);
  r.workload.weights = report::WeightsKind::real;
  r.quality = report::QualitySection{};
  r.quality->delta_vs_fp16_pct = 0.55;
  r.quality->delta_vs_fp16_pct_se = 0.05;
  const GradeResult g = grade_report(r, published_evidence());
  ASSERT_TRUE(g.quality);
  EXPECT_EQ(g.quality->basis, data::QualityBasis::measured);
  EXPECT_EQ(g.quality->basis_text, "measured on this run's weights (m)");
  EXPECT_NEAR(*g.quality->delta_ppl_pct_high, 0.55 + 1.96 * 0.05, 1e-12);
  // The same report without real weights: the evidence's answer (TinyLlama-size INT8, transferred).
  r.workload.weights = report::WeightsKind::synthetic;
  EXPECT_EQ(grade_report(r, published_evidence()).quality->basis, data::QualityBasis::transferred);
}

TEST(Grader, ABatchLevelIsGradedAgainstTheModelAtThatBatch) {
  const Evidence& evidence = published_evidence();
  auto report = report::read_energy_report(fs::path(ECOCOMPUTE_SOURCE_DIR) / "data/sessions/h200-2026-12-02-llama3-8b-batch-8/energy-Q4_K_M-b8.json");
  ASSERT_TRUE(report) << report.error().describe();
  ASSERT_EQ(report->workload.load_level(), 8);
  const GradeResult g = grade_report(*report, evidence);
  EXPECT_NE(g.exit_code(), 2) << g.reason;
  EXPECT_EQ(g.reference, "model");
  EXPECT_TRUE(g.band_low_pct && g.band_high_pct);
  // The published checker's rules grade it as that checker would, and say what it overlooks.
  report::EnergyReport batched = ada_int8_1p1(301.6);
  batched.workload.batch_size = 16;
  const GradeResult published = grade_report_published(batched, shipped_published_reference());
  EXPECT_NE(published.exit_code(), 2) << published.reason;
  bool warned = false;
  for (const std::string& w : published.warnings) warned = warned || contains(w, "does not look at the batch");
  EXPECT_TRUE(warned);
}

TEST(Grader, ALongContextReportIsGradedAtItsContext) {
  auto report = report::read_energy_report(fs::path(ECOCOMPUTE_SOURCE_DIR) /
                                           "data/sessions/h200-2026-12-04-llama3-8b-ctx4096/energy-Q4_K_M-p4096.json");
  ASSERT_TRUE(report) << report.error().describe();
  ASSERT_EQ(report->workload.prompt_tokens.value_or(0), 4096);
  // Its own session is the only one measured beyond context 2048: left out, the context effect of its
  // format is drawn from the measured ones (modelled), and the report is not graded against the
  // short-context figure (≈ −40 % where it measured −26 %).
  const GradeResult alone = grade_report(*report, published_evidence());
  ASSERT_TRUE(alone.reference_basis) << alone.reason;
  EXPECT_EQ(alone.reference_basis->basis, data::Basis::modelled) << alone.reason;
  EXPECT_TRUE(contains(alone.reason, "context 4096 beyond the baseline 2048")) << alone.reason;
  ASSERT_TRUE(alone.expected_delta_pct);
  EXPECT_GT(*alone.expected_delta_pct, -37.0) << alone.reason;
  // The same report from another card is graded against the model at context 4096.
  ASSERT_TRUE(report->environment);
  report->environment->fingerprint = std::string(64, 'c');
  const GradeResult other_card = grade_report(*report, published_evidence());
  EXPECT_EQ(other_card.grade, Grade::inside) << other_card.reason;
  ASSERT_TRUE(other_card.expected_delta_pct);
  EXPECT_NEAR(*other_card.expected_delta_pct, -26.0, 3.0) << other_card.reason;
}

TEST(Grader, AFormatNoSessionMeasuredHasNoReference) {
  const GradeResult g = grade_report(measured("ada", 3.0, "Q2_K", 500.0, 1000.0), published_evidence());
  EXPECT_EQ(g.exit_code(), 2);
  EXPECT_TRUE(contains(g.reason, "no reference for ada transformers+bitsandbytes Q2_K")) << g.reason;
  const GradeResult baseline = grade_report(measured("ada", 3.0, "FP16", 1000.0, 1000.0), published_evidence());
  EXPECT_EQ(baseline.exit_code(), 2);
  EXPECT_TRUE(contains(baseline.reason, "baseline")) << baseline.reason;
}

TEST(Grader, PublishedRegressionVectorsGradeAsPublished) {
  // tests/unit/data/fixtures/published_regression_vectors.json: the published checker's own test
  // vectors (ecocompute-mlcube tests/test_energy.py at b839b1f) with the exit codes it gives.
  auto document = read_json_file(kFixtures / "published_regression_vectors.json");
  ASSERT_TRUE(document) << document.error().describe();
  auto reference = data::published_reference_from_json(Json((*document)["curves"]), "vectors' curves");
  ASSERT_TRUE(reference) << reference.error().describe();
  const double k = (*document)["k"].get<double>();
  ASSERT_EQ((*document)["vectors"].size(), 5u);
  for (const auto& vector : (*document)["vectors"]) {
    const std::string test = vector["test"].get<std::string>();
    auto report = report::energy_report_from_json(vector["report"], test);
    ASSERT_TRUE(report) << report.error().describe();
    const GradeResult g = grade_report_published(*report, *reference, k);
    EXPECT_EQ(g.exit_code(), vector["exit_code"].get<int>()) << test << ": " << g.reason;
    EXPECT_EQ(g.rules, GradingRules::published);
    if (vector.contains("reference")) { EXPECT_EQ(g.reference, vector["reference"].get<std::string>()) << test; }
  }
}

TEST(Grader, PublishedRulesAverageTheAnchorsAtThatSize) {
  // The site's curves.json: ada INT8 anchors at 1.1 B are +146.11 (July) and +137.90 (2026-08-06);
  // mean +142.005, band ± 2 × 26.5949. The curve alone says +173.1 there.
  const data::PublishedReference reference = shipped_published_reference();
  const GradeResult low = grade_report_published(ada_int8_1p1(137.9), reference);
  EXPECT_EQ(low.exit_code(), 0) << low.reason;
  EXPECT_EQ(low.reference, "anchors");
  ASSERT_EQ(low.anchors.size(), 2u);
  EXPECT_NEAR(*low.expected_delta_pct, 142.005, 1e-9);
  EXPECT_NEAR(*low.band_high_pct - *low.expected_delta_pct, 2 * 26.5949, 1e-9);
  EXPECT_NEAR(*low.curve_delta_pct, 173.1, 0.05);
  const GradeResult high = grade_report_published(ada_int8_1p1(301.6), reference);
  EXPECT_EQ(high.exit_code(), 1) << high.reason;
  // Between published sizes there is no anchor: the curve, at any size (the published checker has
  // no range check); hopper borrows ampere's curves, and says so.
  EXPECT_EQ(grade_report_published(measured("ada", 2.0, "INT8", 2500.0, 1000.0), reference).reference, "curve");
  const GradeResult hopper = grade_report_published(measured("hopper", 8.0, "INT8", 2300.0, 1000.0), reference);
  EXPECT_EQ(hopper.curve->gpu_arch, "ampere");
  ASSERT_FALSE(hopper.warnings.empty());
  EXPECT_TRUE(contains(hopper.warnings.front(), "using the ampere curve")) << hopper.warnings.front();
}

TEST(Grader, RefusesToGradeWhatIsNotAMeasurement) {
  const Evidence& evidence = published_evidence();
  const data::PublishedReference reference = shipped_published_reference();
  auto illustrative = report::read_energy_report(kFixtures / "energy.measured.illustrative.json");
  ASSERT_TRUE(illustrative) << illustrative.error().describe();
  report::EnergyReport without_source = *illustrative;
  without_source.measurement_source.reset();
  auto cpu = report::read_energy_report(fs::path(ECOCOMPUTE_SOURCE_DIR) / "tests/golden/energy/energy-Q8_0-no-energy.json");
  ASSERT_TRUE(cpu) << cpu.error().describe();
  report::EnergyReport none = measured("ada", 3.0, "NF4", 1000.0, 1000.0);
  none.measurement_source = "none";
  report::EnergyReport rapl = measured("ada", 3.0, "NF4", 1000.0, 1000.0);
  rapl.measurement_source = "rapl";
  report::EnergyReport estimated = measured("ada", 3.0, "NF4", 1000.0, 1000.0);
  estimated.results.basis = report::ResultBasis::interpolated;
  const std::vector<std::pair<report::EnergyReport, std::string>> cases{
      {*illustrative, "measurement_source says \"ILLUSTRATIVE (synthetic)"},
      {without_source, "results.note says \"ILLUSTRATIVE synthetic values"},
      {*cpu, "a CPU run (system_under_test.gpu_arch \"none\")"},
      {none, "measurement_source is \"none\""},
      {rapl, "read the CPU package, not the GPU"},
      {estimated, "not a measurement"},
  };
  for (const auto& [report, expected] : cases) {
    for (const GradeResult& g : {grade_report(report, evidence), grade_report_published(report, reference)}) {
      EXPECT_EQ(g.exit_code(), 2) << expected << ": " << g.reason;
      EXPECT_TRUE(contains(g.reason, "not a measurement to grade: ")) << g.reason;
      EXPECT_TRUE(contains(g.reason, expected)) << g.reason;
    }
  }
}

TEST(Grader, PublishedRulesRefuseWhatThePublishedCheckerSkips) {
  const data::PublishedReference reference = shipped_published_reference();
  // The published checker grades the stated ΔE only: energies alone are not enough.
  report::EnergyReport unstated = ada_int8_1p1(137.9);
  unstated.results.vs_fp16_energy_pct.reset();
  const GradeResult no_delta = grade_report_published(unstated, reference);
  EXPECT_EQ(no_delta.exit_code(), 2);
  EXPECT_TRUE(contains(no_delta.reason, "no vs_fp16_energy_pct")) << no_delta.reason;
  EXPECT_EQ(grade_report(unstated, published_evidence()).measured_delta_from, "energies");  // ours recomputes it
  report::EnergyReport sizeless = ada_int8_1p1(137.9);
  sizeless.workload.params_b.reset();
  EXPECT_TRUE(contains(grade_report_published(sizeless, reference).reason, "no model size")) << "params_b";
  const GradeResult no_curve = grade_report_published(measured("turing", 1.1, "INT8", 2000.0, 1000.0), reference);
  EXPECT_EQ(no_curve.exit_code(), 2);
  EXPECT_TRUE(contains(no_curve.reason, "no published turing/INT8 curve")) << no_curve.reason;
  const GradeResult baseline = grade_report_published(measured("ada", 1.1, "FP16", 1000.0, 1000.0), reference);
  EXPECT_EQ(baseline.exit_code(), 2);
  EXPECT_TRUE(contains(baseline.reason, "baseline")) << baseline.reason;
  // A source the published checker accepts by its prefix is graded.
  report::EnergyReport spelled = ada_int8_1p1(137.9);
  spelled.measurement_source = "direct-nvml (energy counter)";
  EXPECT_EQ(grade_report_published(spelled, reference).exit_code(), 0) << grade_report_published(spelled, reference).reason;
}

TEST(Grader, SaysWhenTheStatedDeltaDisagreesWithTheEnergies) {
  const Evidence& evidence = published_evidence();
  // Energies give 0 %; the report states −25 %.
  const report::EnergyReport r = measured("ada", 3.0, "NF4", 1000.0, 1000.0, -25.0);
  const GradeResult ours = grade_report(r, evidence);
  ASSERT_EQ(ours.warnings.size(), 1u);
  EXPECT_TRUE(contains(ours.warnings.front(), "results.vs_fp16_energy_pct -25 disagrees with the energies")) << ours.warnings.front();
  EXPECT_NEAR(*ours.measured_delta_pct, 0.0, 1e-12);  // ours grades the energies' ΔE
  EXPECT_EQ(*ours.stated_delta_pct, -25.0);
  EXPECT_TRUE(contains(to_text(ours), "warning: results.vs_fp16_energy_pct -25 disagrees")) << to_text(ours);
  const GradeResult published = grade_report_published(r, shipped_published_reference());
  EXPECT_EQ(*published.measured_delta_pct, -25.0);  // the published checker grades the stated one
  EXPECT_EQ(published.warnings, ours.warnings);
  // Rounding is not a disagreement.
  EXPECT_TRUE(grade_report(measured("ada", 3.0, "NF4", 1007.56, 1000.0, 0.76), evidence).warnings.empty());
}

TEST(Grader, ASharedPointIsGradedAsItsLinkStatesIt) {
  const Evidence& evidence = published_evidence();
  const GradeResult g = grade_point(GradePoint{"ada", "transformers+bitsandbytes", "NF4", 3.0, 0.76, data::Basis::measured}, evidence);
  EXPECT_EQ(g.grade, Grade::inside) << g.reason;
  ASSERT_FALSE(g.warnings.empty());
  EXPECT_TRUE(contains(g.warnings.front(), "carries no measurement_source")) << g.warnings.front();
  EXPECT_EQ(grade_point(GradePoint{"ada", "transformers+bitsandbytes", "NF4", 3.0, 0.76, data::Basis::interpolated}, evidence).exit_code(), 2);
}

}  // namespace
}  // namespace ecocompute::decide
