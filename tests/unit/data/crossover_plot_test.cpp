// The crossover chart's layout, read back from the SVG gnuplot draws: the plot keeps most of the image
// however long the curves' session labels and the title are.
#include "data/crossover_plot.hpp"

#include <unistd.h>

#include <cstdlib>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "util/file_io.hpp"

namespace ecocompute::data {
namespace {

namespace fs = std::filesystem;

// A curve over 0.5–14.8 B with the label a campaign of many sessions gets.
Curve campaign_curve(const std::string& precision) {
  CurveFit fit;
  fit.params = {-30, 10, 4};
  fit.range_min_b = 0.494;
  fit.range_max_b = 14.77;
  fit.points = {{0.494, -20, 3, 1.0, "s", "a"}, {8.03, -38, 3, 1.0, "s", "b"}, {14.77, -40, 1, {}, "s", "c"}};
  return Curve{{"hopper", "llama.cpp", precision}, "fit", {"s"},
               "campaign: 8 sessions of NVIDIA H200 llama.cpp v0.4.0 (7 sizes), cards GPU-286b040d GPU-5c1e0a7f", fit};
}

struct Box {
  double width = 0, height = 0;
};

// The largest closed black rectangle gnuplot draws (the plot's border), and the canvas's size.
std::pair<Box, Box> plot_and_canvas(const std::string& svg) {
  Box canvas, plot;
  std::smatch m;
  if (std::regex_search(svg, m, std::regex(R"re(viewBox="0 0 ([0-9.]+) ([0-9.]+)")re"))) {
    canvas = {std::stod(m[1]), std::stod(m[2])};
  }
  const std::regex rect(R"re(d='M([0-9.]+),([0-9.]+) L\1,([0-9.]+) L([0-9.]+),\3 L\4,\2 L\1,\2 Z)re");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), rect); it != std::sregex_iterator(); ++it) {
    const Box b{std::stod((*it)[4]) - std::stod((*it)[1]), std::stod((*it)[3]) - std::stod((*it)[2])};
    if (b.width * b.height > plot.width * plot.height) plot = b;
  }
  return {plot, canvas};
}

std::string draw(const std::vector<Curve>& curves, const std::string& title) {
  const fs::path dir = fs::temp_directory_path() / ("ecocompute_layout_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  PlotOptions options;
  options.output = dir / "chart.svg";
  options.title = title;
  auto written = write_crossover_plot(curves, options);
  EXPECT_TRUE(written) << written.error().describe();
  auto content = read_file(options.output);
  fs::remove_all(dir);
  return content ? *content : std::string();
}

class CrossoverPlotLayout : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::system("gnuplot --version > /dev/null 2>&1") != 0) GTEST_SKIP() << "gnuplot is not installed";
  }
};

TEST_F(CrossoverPlotLayout, TheHeadlineCurveKeepsMostOfTheImage) {
  const auto [plot, canvas] = plot_and_canvas(draw({campaign_curve("Q4_K_M")}, ""));
  ASSERT_GT(canvas.width, 0);
  ASSERT_GT(plot.width, 0) << "no plot border found";
  EXPECT_GE(plot.width / canvas.width, 0.80) << "the legend squeezes the plot";
  EXPECT_GE(plot.width * plot.height / (canvas.width * canvas.height), 0.50);
}

TEST_F(CrossoverPlotLayout, FourCurvesStillLeaveThePlotHalfTheImage) {
  std::vector<Curve> curves;
  for (const char* p : {"Q8_0", "Q6_K", "Q4_K_M", "Q4_0"}) curves.push_back(campaign_curve(p));
  const auto [plot, canvas] = plot_and_canvas(draw(curves, ""));
  ASSERT_GT(plot.width, 0);
  EXPECT_GE(plot.width / canvas.width, 0.80);
  EXPECT_GE(plot.width * plot.height / (canvas.width * canvas.height), 0.40);
}

TEST_F(CrossoverPlotLayout, ALongTitleWrapsWithinTheCanvas) {
  const std::string title =
      "Hopper H200, llama.cpp b6k, Q4_K_M against F16 at batch 1, synthetic weights, 8 sessions on 3 cards: "
      "energy per generated token, gross of idle, 95 % confidence band of the fitted curve";
  const std::string svg = draw({campaign_curve("Q4_K_M")}, title);
  ASSERT_NE(svg.find("<svg"), std::string::npos);
  // Every word of the title is drawn, and no drawn line is wider than the canvas (8 px per character).
  const auto [plot, canvas] = plot_and_canvas(svg);
  std::istringstream words(title);
  for (std::string word; words >> word;) EXPECT_NE(svg.find(word), std::string::npos) << word;
  const std::regex line(R"re(<text>(Hopper[^<]*|[^<]*confidence band of the fitted curve)</text>)re");
  int lines = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), line); it != std::sregex_iterator(); ++it, ++lines) {
    EXPECT_LE(8.0 * static_cast<double>((*it)[1].length()), canvas.width) << (*it)[1];
  }
  EXPECT_GE(lines, 2) << "the title was not wrapped";
}

}  // namespace
}  // namespace ecocompute::data
