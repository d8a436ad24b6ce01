#include "report/atlas_grid.hpp"

#include <gtest/gtest.h>

#include <string>

namespace ecocompute::report {
namespace {

// Two sizes × two batches: measured, modelled, interpolated without an interval, and no figure.
AtlasGrid sample() {
  AtlasGrid g;
  g.gpu = "H200";
  g.engine = "llama.cpp";
  g.precision = "Q4_K_M";
  g.scope = "synthetic weights, gross energy";
  g.sizes_b = {1.24, 8.03};
  g.size_labels = {"Llama-3.2-1B", "Llama-3-8B"};
  g.batches = {1, 64};
  g.cells = {AtlasCell{1.24, 1, -33.1, -33.5, -32.7, "measured", 2},
             AtlasCell{1.24, 64, 4.0, -30.0, 38.0, "modelled", 0},
             AtlasCell{8.03, 1, -38.4, std::nullopt, std::nullopt, "interpolated", 0},
             AtlasCell{8.03, 64, std::nullopt, std::nullopt, std::nullopt, "unavailable", 0}};
  return g;
}

TEST(AtlasGrid, CellsAreRowsOfSizesAndColumnsOfBatches) {
  const AtlasGrid g = sample();
  ASSERT_NE(g.at(1, 0), nullptr);
  EXPECT_EQ(g.at(1, 0)->basis, "interpolated");
  EXPECT_EQ(g.at(0, 1)->batch, 64);
  EXPECT_EQ(g.at(2, 0), nullptr);
  EXPECT_EQ(g.at(0, 2), nullptr);
  EXPECT_EQ(g.count("measured"), 1u);
}

TEST(AtlasGrid, TheTableGivesEachCellItsFigureIntervalAndBasis) {
  const std::string text = atlas_text(sample());
  EXPECT_NE(text.find("Q4_K_M on H200 with llama.cpp"), std::string::npos) << text;
  EXPECT_NE(text.find("-33.1 [-33.5, -32.7] M"), std::string::npos) << text;
  EXPECT_NE(text.find("+4.0 [-30.0, +38.0] D"), std::string::npos) << text;
  EXPECT_NE(text.find("-38.4 I"), std::string::npos) << text;
  EXPECT_NE(text.find("8.03 B Llama-3-8B"), std::string::npos) << text;
  EXPECT_NE(text.find("1 of 4 cells measured"), std::string::npos) << text;
}

TEST(AtlasGrid, JsonNamesEveryCellAndTheMissingOnes) {
  const OrderedJson j = atlas_json(sample());
  ASSERT_EQ(j["cells"].size(), 4u);
  EXPECT_EQ(j["cells"][1]["basis"], "modelled");
  EXPECT_EQ(j["cells"][1]["ci"][1], 38.0);
  EXPECT_TRUE(j["cells"][3]["delta_pct"].is_null());
  EXPECT_TRUE(j["cells"][2]["ci"].is_null());
  EXPECT_EQ(j["measured"], 1);
  EXPECT_EQ(j["missing"], 3);
}

TEST(AtlasGrid, TheHeatmapHatchesWhatIsNotMeasuredAndGreysWhatHasNoFigure) {
  const std::string svg = atlas_svg(sample());
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  // One hatch overlay per cell with a figure that is not measured (two), and the legend's sample.
  std::size_t hatched = 0;
  for (std::size_t at = svg.find("fill=\"url(#hatch)\""); at != std::string::npos; at = svg.find("fill=\"url(#hatch)\"", at + 1)) {
    ++hatched;
  }
  EXPECT_EQ(hatched, 3u);
  EXPECT_NE(svg.find("+4.0 %"), std::string::npos);
  EXPECT_NE(svg.find("[-30.0, +38.0] modelled"), std::string::npos);
  EXPECT_NE(svg.find("no figure"), std::string::npos);
  EXPECT_NE(svg.find("batch 64"), std::string::npos);
  // Saving is blue, costing red: the measured −33 % cell is bluish, the +4 % cell reddish.
  EXPECT_NE(svg.find("fill=\"#85abd1\""), std::string::npos) << svg.substr(0, 2000);
}

}  // namespace
}  // namespace ecocompute::report
