// Tests of the published reference (the site's curves.json), the comparison of sessions and reports,
// and the crossover chart: what the store describes, apart from the decision layer.
#include <gtest/gtest.h>

#include <unistd.h>

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

bool contains(const std::string& text, const std::string& fragment) { return text.find(fragment) != std::string::npos; }

PublishedReference shipped_published_reference() {
  auto reference = read_published_reference(kPublishedData);
  EXPECT_TRUE(reference) << reference.error().describe();
  return reference.value_or(PublishedReference{});
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
