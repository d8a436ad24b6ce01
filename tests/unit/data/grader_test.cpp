// Tests of the grader (our rules and the published checker's, on its own test vectors), the published
// reference, the comparison of sessions and reports, and the crossover chart.
#include "data/grader.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "data/comparison.hpp"
#include "data/crossover_plot.hpp"
#include "data/dataset_import.hpp"
#include "data/published_reference.hpp"
#include "report/energy_report.hpp"
#include "util/file_io.hpp"
#include "support/data_paths.hpp"

namespace ecocompute::data {
namespace {

namespace fs = std::filesystem;
using ::ecocompute::testing::kPublishedData;

Evidence published_curves() {
  setenv("ECOCOMPUTE_DATA_DIR", (std::string(ECOCOMPUTE_SOURCE_DIR) + "/data").c_str(), 1);
  EvidenceOptions options;
  options.curve_source = CurveSource::published;
  auto evidence = load_published_evidence(options);
  EXPECT_TRUE(evidence) << evidence.error().describe();
  return std::move(*evidence);
}

const fs::path kFixtures = fs::path(ECOCOMPUTE_SOURCE_DIR) / "tests" / "unit" / "data" / "fixtures";

// A 1.1 report of one measured point: ΔE stated as `stated` (default: what the energies give).
report::EnergyReport measured(const std::string& arch, double params_b, const std::string& precision, double energy,
                              double fp16, std::optional<double> stated = std::nullopt) {
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

// The ada INT8 1.1 B report of the issue: ΔE +137.9 % (the 2026-08-06 session's anchor) or +301.6 %
// (the 2026-08-19 session's measurement), stated and in its energies.
report::EnergyReport ada_int8_1p1(double delta_pct) { return measured("ada", 1.1, "INT8", 1000.0 + 10.0 * delta_pct, 1000.0); }

PublishedReference shipped_published_reference() {
  auto reference = read_published_reference(kPublishedData);
  EXPECT_TRUE(reference) << reference.error().describe();
  return reference.value_or(PublishedReference{});
}

Evidence store_curves() {
  setenv("ECOCOMPUTE_DATA_DIR", (std::string(ECOCOMPUTE_SOURCE_DIR) + "/data").c_str(), 1);
  auto evidence = load_published_evidence();
  EXPECT_TRUE(evidence) << evidence.error().describe();
  return std::move(*evidence);
}

bool contains(const std::string& text, const std::string& fragment) { return text.find(fragment) != std::string::npos; }

TEST(Grader, InsideOutsideAndNotGradeable) {
  const Evidence evidence = published_curves();
  // Published ada NF4 at 3 B: +6.757 %; band ± 2 × 11.4822 = ± 22.96 → [−16.21, +29.72].
  const GradeResult inside = grade_report(measured("ada", 3.0, "NF4", 1000.0, 1000.0), evidence);  // ΔE 0 %
  EXPECT_EQ(inside.grade, Grade::inside) << inside.reason;
  EXPECT_EQ(inside.exit_code(), 0);
  EXPECT_EQ(inside.reference, "curve");
  EXPECT_EQ(inside.measured_delta_from, "energies");
  EXPECT_NEAR(*inside.band_low_pct, 6.757 - 22.9644, 2e-3);
  const GradeResult outside = grade_report(measured("ada", 3.0, "NF4", 1400.0, 1000.0), evidence);  // ΔE +40 %
  EXPECT_EQ(outside.grade, Grade::outside);
  EXPECT_EQ(outside.exit_code(), 1);
  report::EnergyReport estimate = measured("ada", 3.0, "NF4", 1000.0, 1000.0);
  estimate.results.basis = report::ResultBasis::interpolated;
  const GradeResult not_measured = grade_report(estimate, evidence);
  EXPECT_EQ(not_measured.exit_code(), 2);
  EXPECT_TRUE(contains(not_measured.reason, "not a measurement")) << not_measured.reason;
  EXPECT_TRUE(contains(grade_report(measured("hopper", 3.0, "NF4", 1000.0, 1000.0), evidence).reason, "no curve"));
  const GradeResult far = grade_report(measured("ada", 70.0, "NF4", 1000.0, 1000.0), evidence);
  EXPECT_EQ(far.exit_code(), 2);
  EXPECT_TRUE(contains(far.reason, "outside the curve's measured range")) << far.reason;
  const GradeResult baseline = grade_report(measured("ada", 3.0, "FP16", 1000.0, 1000.0), evidence);
  EXPECT_EQ(baseline.exit_code(), 2);
  EXPECT_TRUE(contains(baseline.reason, "baseline")) << baseline.reason;
}

TEST(Grader, PublishedRegressionVectorsGradeAsPublished) {
  // tests/unit/data/fixtures/published_regression_vectors.json: the published checker's own test
  // vectors (ecocompute-mlcube tests/test_energy.py at b839b1f) with the exit codes it gives.
  auto document = read_json_file(kFixtures / "published_regression_vectors.json");
  ASSERT_TRUE(document) << document.error().describe();
  auto reference = published_reference_from_json(Json((*document)["curves"]), "vectors' curves");
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
    if (vector.contains("reference")) {
      EXPECT_EQ(g.reference, vector["reference"].get<std::string>()) << test;
    }
  }
}

TEST(Grader, PublishedRulesAverageTheAnchorsAtThatSize) {
  // The site's curves.json: ada INT8 anchors at 1.1 B are +146.11 (July) and +137.90 (2026-08-06);
  // mean +142.005, band ± 2 × 26.5949. The curve alone says +173.1 there.
  const PublishedReference reference = shipped_published_reference();
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
  const GradeResult between = grade_report_published(measured("ada", 2.0, "INT8", 2500.0, 1000.0), reference);
  EXPECT_EQ(between.reference, "curve");
  const GradeResult hopper = grade_report_published(measured("hopper", 8.0, "INT8", 2300.0, 1000.0), reference);
  EXPECT_EQ(hopper.curve->gpu_arch, "ampere");
  ASSERT_FALSE(hopper.warnings.empty());
  EXPECT_TRUE(contains(hopper.warnings.front(), "using the ampere curve")) << hopper.warnings.front();
}

TEST(Grader, OurRulesGradeAgainstOneSessionAndSayHowTheyDiffer) {
  // Our default: the ada INT8 curve of one session (2026-08-20, the most sizes and trials), whose own
  // 1.1 B points are the reference: +137.9 % is far outside it, +301.6 % inside.
  const Evidence evidence = store_curves();
  const GradeResult low = grade_report(ada_int8_1p1(137.9), evidence);
  const GradeResult high = grade_report(ada_int8_1p1(301.6), evidence);
  EXPECT_EQ(low.exit_code(), 1) << low.reason;
  EXPECT_EQ(high.exit_code(), 0) << high.reason;
  EXPECT_EQ(high.curve_session, "rtx4090_2026-08-20");
  EXPECT_EQ(high.reference, "anchors");
  EXPECT_EQ(high.rules, GradingRules::ecocompute);
  const std::string text = to_text(high);
  EXPECT_TRUE(contains(text, "rules: ecocompute (ours)")) << text;
  EXPECT_TRUE(contains(text, "The published checker (--rules published)")) << text;
  const Json j = Json(high);
  EXPECT_EQ(j["rules"], "ecocompute");
  EXPECT_TRUE(contains(j["rules_note"].get<std::string>(), "sessions never pooled"));
  EXPECT_EQ(Json(grade_report_published(ada_int8_1p1(301.6), shipped_published_reference()))["rules"], "published");
}

TEST(Grader, ABatchOrConcurrencyLevelIsNotGradedAgainstBatchOneCurves) {
  const Evidence evidence = store_curves();
  // Inside the band at batch 1 (as above); the same ΔE at batch 16 has no reference.
  report::EnergyReport batched = ada_int8_1p1(301.6);
  ASSERT_EQ(grade_report(batched, evidence).exit_code(), 0);
  batched.workload.batch_size = 16;
  const GradeResult b16 = grade_report(batched, evidence);
  EXPECT_EQ(b16.exit_code(), 2) << b16.reason;
  EXPECT_TRUE(contains(b16.reason, "measured at batch 16")) << b16.reason;

  report::EnergyReport served = ada_int8_1p1(301.6);
  served.workload.concurrency = 64;
  const GradeResult c64 = grade_report(served, evidence);
  EXPECT_EQ(c64.exit_code(), 2);
  EXPECT_TRUE(contains(c64.reason, "concurrency 64")) << c64.reason;

  // The published checker's rules grade it as that checker would, and say what it overlooks.
  const GradeResult published = grade_report_published(batched, shipped_published_reference());
  EXPECT_NE(published.exit_code(), 2) << published.reason;
  bool warned = false;
  for (const std::string& w : published.warnings) warned = warned || contains(w, "does not look at the batch");
  EXPECT_TRUE(warned);
}

TEST(Grader, RefusesToGradeWhatIsNotAMeasurement) {
  const Evidence evidence = store_curves();
  const PublishedReference reference = shipped_published_reference();
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
  const std::vector<std::pair<report::EnergyReport, std::string>> cases{
      {*illustrative, "measurement_source says \"ILLUSTRATIVE (synthetic)"},
      {without_source, "results.note says \"ILLUSTRATIVE synthetic values"},
      {*cpu, "a CPU run (system_under_test.gpu_arch \"none\")"},
      {none, "measurement_source is \"none\""},
      {rapl, "read the CPU package, not the GPU"},
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
  const PublishedReference reference = shipped_published_reference();
  // The published checker grades the stated ΔE only: energies alone are not enough.
  report::EnergyReport unstated = ada_int8_1p1(137.9);
  unstated.results.vs_fp16_energy_pct.reset();
  const GradeResult no_delta = grade_report_published(unstated, reference);
  EXPECT_EQ(no_delta.exit_code(), 2);
  EXPECT_TRUE(contains(no_delta.reason, "no vs_fp16_energy_pct")) << no_delta.reason;
  EXPECT_EQ(grade_report(unstated, store_curves()).measured_delta_from, "energies");  // ours recomputes it
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
  const Evidence evidence = published_curves();
  // Energies give 0 %; the report states −25 %.
  const report::EnergyReport r = measured("ada", 3.0, "NF4", 1000.0, 1000.0, -25.0);
  const GradeResult ours = grade_report(r, evidence);
  ASSERT_EQ(ours.warnings.size(), 1u);
  EXPECT_TRUE(contains(ours.warnings.front(), "results.vs_fp16_energy_pct -25 disagrees with the energies"))
      << ours.warnings.front();
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
  const Evidence evidence = published_curves();
  const GradeResult g = grade_point(GradePoint{"ada", "transformers+bitsandbytes", "NF4", 3.0, 0.76, Basis::measured}, evidence);
  EXPECT_EQ(g.grade, Grade::inside) << g.reason;
  ASSERT_FALSE(g.warnings.empty());
  EXPECT_TRUE(contains(g.warnings.front(), "carries no measurement_source")) << g.warnings.front();
  EXPECT_EQ(grade_point(GradePoint{"ada", "transformers+bitsandbytes", "NF4", 3.0, 0.76, Basis::interpolated}, evidence)
                .exit_code(),
            2);
}

TEST(PublishedReference, ShippedFilesGiveTheSiteCurvesAndAnchors) {
  // curves.json of the site: ada INT8 anchors 241.89 (0.5), 146.11 and 137.9 (1.1), 180.73 (1.5),
  // 134.82 (3), 49.54 (7); the RTX 4090D 1.1 B NF4 anchor has n = 2.
  const PublishedReference reference = shipped_published_reference();
  const PublishedCurve* int8 = reference.find("ada", "INT8");
  ASSERT_NE(int8, nullptr);
  std::vector<double> deltas;
  for (const PublishedAnchor& a : int8->anchors) deltas.push_back(a.delta_pct);
  EXPECT_EQ(deltas, (std::vector<double>{241.89, 146.11, 137.9, 180.73, 134.82, 49.54}));
  EXPECT_DOUBLE_EQ(int8->params.a_pct, 291.8945);
  EXPECT_DOUBLE_EQ(int8->resid_std_pct, 26.5949);
  const PublishedCurve* nf4 = reference.find("ada", "NF4");
  ASSERT_NE(nf4, nullptr);
  ASSERT_EQ(nf4->anchors.size(), 9u);
  EXPECT_EQ(nf4->anchors[3].n, 2);
  EXPECT_EQ(nf4->anchors[3].gpu, "RTX 4090D");
  EXPECT_EQ(reference.lender_of("hopper"), "ampere");
  EXPECT_FALSE(reference.lender_of("ada"));
  EXPECT_FALSE(published_reference_from_json(Json::array(), "x.json"));
  EXPECT_FALSE(published_reference_from_json(Json::parse(R"({"curves": {"ada": {"INT8": {"A": 1}}}})"), "x.json"));
}

TEST(Comparison, SessionsWithDifferentStacksAreNotPooled) {
  auto july = read_published_csv(kPublishedData / "rtx4090_2026-07-24.csv");
  auto august = read_published_csv(kPublishedData / "rtx4090_2026-08-20_int8_replicates.csv");
  ASSERT_TRUE(july && august);
  const Comparison c = compare(side_from_batch(*july, "july"), side_from_batch(*august, "august"));
  EXPECT_FALSE(c.same_stack);
  ASSERT_FALSE(c.warnings.empty());
  EXPECT_NE(c.warnings.front().find("different stack: do not pool"), std::string::npos);
  ASSERT_EQ(c.pairs.size(), 5u);  // the five INT8 sizes; the July NF4 rows are unmatched
  EXPECT_EQ(c.unmatched.size(), 5u);
  const PairedRow& half = c.pairs.front();
  EXPECT_DOUBLE_EQ(half.params_b, 0.5);
  // July 0.5B INT8 241.894 %, August mean 581.293 % → +339.40 points.
  EXPECT_NEAR(*half.difference_pp, 339.399, 1e-3);
  EXPECT_EQ(half.n_b, 3);
  ASSERT_TRUE(c.ci95_low_pp);
  const Comparison same = compare(side_from_batch(*july, "a"), side_from_batch(*july, "b"));
  EXPECT_TRUE(same.same_stack);
  EXPECT_TRUE(same.warnings.empty());
  EXPECT_NEAR(*same.mean_difference_pp, 0.0, 1e-12);
}

TEST(Comparison, TwoCpuReportsCompareOnThroughputAndQuality) {
  // Our CPU reports: gpu_arch "none", no energy counter. They compare; their energy does not.
  const fs::path golden = fs::path(ECOCOMPUTE_SOURCE_DIR) / "tests/golden/energy/energy-Q8_0-no-energy.json";
  auto a = report::read_energy_report(golden);
  ASSERT_TRUE(a) << a.error().describe();
  report::EnergyReport b = *a;
  b.results.throughput_tokens_per_s = 220.0;  // 200 → 220 tok/s
  const Comparison c = compare(side_from_report(*a, "a.json"), side_from_report(b, "b.json"));
  EXPECT_TRUE(c.same_stack);  // the same environment fingerprint
  ASSERT_EQ(c.pairs.size(), 1u);
  EXPECT_FALSE(c.pairs.front().difference_pp);
  EXPECT_FALSE(c.pairs.front().energy_a_mj);
  EXPECT_NEAR(*c.pairs.front().throughput_difference_pct, 10.0, 1e-9);
  EXPECT_NEAR(*c.pairs.front().delta_ppl_b_pct, 0.5, 1e-12);
  EXPECT_FALSE(c.mean_difference_pp);
  bool says_why = false;
  for (const std::string& w : c.warnings) says_why = says_why || contains(w, "a.json: energy not compared: ");
  EXPECT_TRUE(says_why);
  EXPECT_TRUE(contains(to_text(c), "+10.00%")) << to_text(c);
}

TEST(CrossoverPlot, ScriptMarksPointsByTrialCount) {
  CurveFit fit;
  fit.params = {40, 100, 4};
  fit.range_min_b = 0.5;
  fit.range_max_b = 7;
  fit.points = {{0.5, 30, 3, 1.0, "s", "a"}, {7, -20, 1, {}, "s", "b"}};
  const Curve curve{{"ada", "llama.cpp", "Q4_K_M"}, "fit", {"s"}, "session", fit};
  PlotOptions options;
  options.output = "chart.svg";
  const std::string script = crossover_plot_script({curve}, options);
  EXPECT_NE(script.find("set terminal svg"), std::string::npos);
  EXPECT_NE(script.find("pt 7"), std::string::npos);  // filled: n ≥ 2
  EXPECT_NE(script.find("pt 6"), std::string::npos);  // hollow: n = 1
  EXPECT_NE(script.find("0.5 30\n"), std::string::npos);
  options.output = "chart.png";
  EXPECT_NE(crossover_plot_script({curve}, options).find("pngcairo"), std::string::npos);
  options.output = "chart.pdf";
  EXPECT_FALSE(write_crossover_plot({curve}, options));
}

TEST(CrossoverPlot, GnuplotWritesSvgAndPng) {
  if (std::system("gnuplot --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot is not installed";
  const fs::path dir = fs::temp_directory_path() / ("ecocompute_plot_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  auto curves = reproduce_published_curves(kPublishedData / "site_measured_fit_input.csv");
  ASSERT_TRUE(curves);
  curves->resize(1);  // ada NF4
  for (const char* name : {"chart.svg", "chart.png"}) {
    PlotOptions options;
    options.output = dir / name;
    auto written = write_crossover_plot(*curves, options);
    ASSERT_TRUE(written) << written.error().describe();
    auto content = read_file(dir / name);
    ASSERT_TRUE(content);
    if (std::string(name) == "chart.svg") {
      EXPECT_NE(content->find("<svg"), std::string::npos);
    } else {
      EXPECT_EQ(content->substr(1, 3), "PNG");
    }
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ecocompute::data
