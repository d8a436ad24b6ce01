// Tests of the grader, the comparison of sessions, and the crossover chart.
#include "data/grader.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "data/comparison.hpp"
#include "data/crossover_plot.hpp"
#include "data/dataset_import.hpp"
#include "util/file_io.hpp"

namespace ecocompute::data {
namespace {

namespace fs = std::filesystem;
const fs::path kPublished = fs::path(ECOCOMPUTE_SOURCE_DIR) / "data" / "published";

Evidence published_curves() {
  setenv("ECOCOMPUTE_DATA_DIR", (std::string(ECOCOMPUTE_SOURCE_DIR) + "/data").c_str(), 1);
  EvidenceOptions options;
  options.curve_source = CurveSource::published;
  auto evidence = load_published_evidence(options);
  EXPECT_TRUE(evidence) << evidence.error().describe();
  return std::move(*evidence);
}

DataRow ada_nf4(double params_b, double energy, double fp16) {
  DataRow r;
  r.gpu_arch = "ada";
  r.engine = "transformers+bitsandbytes";
  r.precision = "NF4";
  r.params_b = params_b;
  r.energy_per_token_mj = energy;
  r.fp16_energy_per_token_mj = fp16;
  return r;
}

TEST(Grader, InsideOutsideAndNotGradeable) {
  const Evidence evidence = published_curves();
  // Published ada NF4 at 3 B: +6.757 %; band ± 2 × 11.4822 = ± 22.96 → [−16.21, +29.72].
  const GradeResult inside = grade_row(ada_nf4(3.0, 1000.0, 1000.0), evidence);  // ΔE 0 %
  EXPECT_EQ(inside.grade, Grade::inside);
  EXPECT_EQ(inside.exit_code(), 0);
  EXPECT_NEAR(*inside.band_low_pct, 6.757 - 22.9644, 2e-3);
  const GradeResult outside = grade_row(ada_nf4(3.0, 1400.0, 1000.0), evidence);  // ΔE +40 %
  EXPECT_EQ(outside.grade, Grade::outside);
  EXPECT_EQ(outside.exit_code(), 1);
  DataRow estimate = ada_nf4(3.0, 1000.0, 1000.0);
  estimate.basis = Basis::interpolated;
  const GradeResult not_measured = grade_row(estimate, evidence);
  EXPECT_EQ(not_measured.exit_code(), 2);
  EXPECT_NE(not_measured.reason.find("not a measurement"), std::string::npos);
  DataRow hopper = ada_nf4(3.0, 1000.0, 1000.0);
  hopper.gpu_arch = "hopper";
  EXPECT_NE(grade_row(hopper, evidence).reason.find("no curve"), std::string::npos);
  const GradeResult far = grade_row(ada_nf4(70.0, 1000.0, 1000.0), evidence);
  EXPECT_EQ(far.exit_code(), 2);
  EXPECT_NE(far.reason.find("outside the curve's measured range"), std::string::npos);
}

TEST(Comparison, SessionsWithDifferentStacksAreNotPooled) {
  auto july = read_published_csv(kPublished / "rtx4090_2026-07-24.csv");
  auto august = read_published_csv(kPublished / "rtx4090_2026-08-20_int8_replicates.csv");
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
  EXPECT_NEAR(half.difference_pp, 339.399, 1e-3);
  EXPECT_EQ(half.n_b, 3);
  ASSERT_TRUE(c.ci95_low_pp);
  const Comparison same = compare(side_from_batch(*july, "a"), side_from_batch(*july, "b"));
  EXPECT_TRUE(same.same_stack);
  EXPECT_TRUE(same.warnings.empty());
  EXPECT_NEAR(*same.mean_difference_pp, 0.0, 1e-12);
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
  auto curves = reproduce_published_curves(kPublished / "site_measured_fit_input.csv");
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
