// Tests of the fitted mixed model on cells that follow its own assumptions: REML finds the between-
// card spread it was given, a prediction at a measured place is the measurement's, the interval
// grows away from the measured places, the answer is continuous in size, and a stored fit answers as
// the fit does.
#include "decide/outcome_model.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "decide/figure.hpp"
#include "support/normal_draws.hpp"

namespace ecocompute::decide {
namespace {

using Draws = testing::NormalDraws;

// Two formats on one card model: ln ratio = level + slope·ln N + a smooth bend, three cards at each
// of seven sizes, between-card SD `card_sd`, within-session SD 0.003.
std::vector<Cell> synthetic_cells(double card_sd, Draws& draws) {
  std::vector<Cell> cells;
  const double sizes[] = {0.5, 1.2, 1.5, 3.2, 7.6, 8.0, 14.8};
  for (const char* precision : {"Q8_0", "Q4_K_M"}) {
    const double level = std::string(precision) == "Q8_0" ? -0.38 : -0.50;
    for (double n : sizes) {
      for (int card = 0; card < 3; ++card) {
        Cell c;
        c.place = CellPlace{"llama.cpp", precision, "hopper", "H200", n, 1};
        c.session_id = "card" + std::to_string(card) + "-" + std::to_string(n);
        c.value = level + 0.02 * std::log(n) + 0.03 * std::sin(std::log(n)) + card_sd * draws.normal() + 0.003 * draws.normal();
        c.within_var = 0.003 * 0.003;
        cells.push_back(c);
      }
    }
  }
  return cells;
}

ModelPoint at(double n, const char* precision = "Q4_K_M", int batch = 1) {
  return point_of(CellPlace{"llama.cpp", precision, "hopper", "H200", n, batch});
}

TEST(OutcomeModel, RemlFindsTheBetweenCardSpreadItWasGiven) {
  Draws draws;
  const OutcomeModel model = OutcomeModel::fit(synthetic_cells(0.03, draws));
  const FamilyFit* family = model.family_of("llama.cpp");
  ASSERT_NE(family, nullptr);
  const double card_sd = std::sqrt(family->components().card_var("llama.cpp|Q4_K_M"));
  EXPECT_GT(card_sd, 0.015);
  EXPECT_LT(card_sd, 0.06);
  const auto p = model.predict(at(8.0));
  ASSERT_TRUE(p);
  EXPECT_NEAR(std::sqrt(p->card_var), card_sd, 1e-12);  // another card at a measured place: the card spread
}

TEST(OutcomeModel, TheIntervalGrowsAwayFromTheMeasuredSizesAndIsContinuous) {
  Draws draws;
  const OutcomeModel model = OutcomeModel::fit(synthetic_cells(0.02, draws));
  const auto measured = model.predict(at(3.2));
  const auto between = model.predict(at(2.2));
  const auto beyond = model.predict(at(60.0));
  ASSERT_TRUE(measured && between && beyond);
  EXPECT_LT(measured->mean_var, between->mean_var);
  EXPECT_LT(between->mean_var, beyond->mean_var);
  EXPECT_GT(beyond->log_variance_sd, 0.0);  // the variances' own uncertainty is carried
  // No snapping: a size 0.1 % from a measured one answers within a small fraction of the card spread.
  const auto near = model.predict(at(3.2 * 1.001));
  ASSERT_TRUE(near);
  EXPECT_NEAR(near->mean, measured->mean, 0.05 * std::sqrt(measured->card_var));
  EXPECT_NEAR(near->mean_var, measured->mean_var, 0.05 * measured->mean_var);
}

TEST(OutcomeModel, AFormatNeverMeasuredIsNotAnswered) {
  Draws draws;
  const OutcomeModel model = OutcomeModel::fit(synthetic_cells(0.02, draws));
  EXPECT_FALSE(model.predict(at(3.2, "IQ4_NL")));
  // No engine was measured above batch 1: nothing says what a batch does.
  EXPECT_FALSE(model.predict(at(3.2, "Q4_K_M", 8)));
  EXPECT_FALSE(model.measured(Unmeasured::batch));
}

// places_of: each key's locations, in the order of locations(), in the fit, in a copy of it and in a
// stored fit read back (each reads its own locations).
TEST(OutcomeModel, EachFormatsPlacesAreItsLocationsInOrderInEveryCopy) {
  Draws draws;
  const OutcomeModel model = OutcomeModel::fit(synthetic_cells(0.02, draws));
  const OutcomeModel copy = model;
  auto restored = OutcomeModel::from_json(Json::parse(Json(model).dump()));
  ASSERT_TRUE(restored) << restored.error().describe();
  for (const OutcomeModel* m : {&model, &copy, static_cast<const OutcomeModel*>(&*restored)}) {
    const FamilyFit* family = m->family_of("llama.cpp");
    ASSERT_NE(family, nullptr);
    std::size_t listed = 0;
    for (const char* key : {"llama.cpp|Q8_0", "llama.cpp|Q4_K_M", "llama.cpp|Q4_0"}) {
      std::vector<const Location*> expected;
      for (const Location& l : family->locations()) {
        if (l.point.key == key) expected.push_back(&l);
      }
      EXPECT_EQ(family->places_of(key), expected) << key;
      listed += expected.size();
    }
    EXPECT_EQ(listed, family->locations().size());
    EXPECT_EQ(family->places_of("llama.cpp|Q4_K_M").size(), 7u);  // seven sizes, their cards merged per place
  }
}

TEST(OutcomeModel, AStoredFitAnswersAsTheFitDoes) {
  Draws draws;
  const OutcomeModel model = OutcomeModel::fit(synthetic_cells(0.02, draws));
  auto restored = OutcomeModel::from_json(Json::parse(Json(model).dump()));
  ASSERT_TRUE(restored) << restored.error().describe();
  for (double n : {0.5, 2.0, 8.0, 40.0}) {
    const auto a = model.predict(at(n)), b = restored->predict(at(n));
    ASSERT_TRUE(a && b);
    EXPECT_NEAR(a->mean, b->mean, 1e-9) << n;
    EXPECT_NEAR(a->mean_var, b->mean_var, 1e-9 * a->mean_var) << n;
    EXPECT_NEAR(a->log_variance_sd, b->log_variance_sd, 1e-6) << n;
  }
  EXPECT_FALSE(OutcomeModel::from_json(Json::parse(R"({"families": {}})")));
}

TEST(OutcomeModel, AStoredFitKeepsEveryCellAndRefusesDamagedOnes) {
  Draws draws;
  const OutcomeModel model = OutcomeModel::fit(synthetic_cells(0.02, draws));
  const Json stored = Json(model);
  auto restored = OutcomeModel::from_json(stored);
  ASSERT_TRUE(restored) << restored.error().describe();
  ASSERT_EQ(restored->families().size(), model.families().size());
  for (const auto& [name, fit] : model.families()) {
    const auto& a = fit.locations();
    const auto& b = restored->families().at(name).locations();
    ASSERT_EQ(a.size(), b.size()) << name;
    for (std::size_t i = 0; i < a.size(); ++i) {
      EXPECT_EQ(a[i].values, b[i].values);
      EXPECT_EQ(a[i].within, b[i].within);
      EXPECT_EQ(a[i].sessions, b[i].sessions);
    }
  }
  // A place's cells that do not unpack, or that name a session past the table, are an error, not an answer.
  const std::string family = stored.at("families").begin().key();
  Json cut = stored;
  std::string& values = cut["families"][family]["locations"][0]["values"].get_ref<std::string&>();
  values.resize(values.size() - 4);
  EXPECT_FALSE(OutcomeModel::from_json(cut));
  Json short_table = stored;
  short_table["session_ids"].erase(short_table["session_ids"].size() - 1);
  EXPECT_FALSE(OutcomeModel::from_json(short_table));
  Json not_text = stored;
  not_text["families"][family]["locations"][0]["within"] = Json::array({0.1});
  EXPECT_FALSE(OutcomeModel::from_json(not_text));
}

TEST(OutcomeModel, IntervalsHoldNewCardsAsOftenAsTheySay) {
  // Cards drawn from the model's own assumptions: the 95 % interval for a new card at a measured
  // place holds about 95 % of new cards there.
  Draws draws;
  const OutcomeModel model = OutcomeModel::fit(synthetic_cells(0.03, draws));
  int inside = 0, total = 0;
  for (double n : {0.5, 1.2, 3.2, 8.0, 14.8}) {
    const auto p = model.predict(at(n));
    ASSERT_TRUE(p);
    const Figure f = figure_from_log(p->mean, p->mean_var, p->card_var, p->log_variance_sd, delta_of_log);
    const double truth_mean = -0.50 + 0.02 * std::log(n) + 0.03 * std::sin(std::log(n));
    for (int card = 0; card < 200; ++card) {
      const double y = delta_of_log(truth_mean + 0.03 * draws.normal() + 0.003 * draws.normal());
      inside += y >= f.low && y <= f.high ? 1 : 0;
      ++total;
    }
  }
  EXPECT_GT(static_cast<double>(inside) / total, 0.88);
  EXPECT_LT(static_cast<double>(inside) / total, 0.995);
}

}  // namespace
}  // namespace ecocompute::decide
