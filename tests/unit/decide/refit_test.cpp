// Tests that refit the decision model on the shipped evidence with rows added (a batch session, many
// cards at one place): each is a whole fit, minutes under AddressSanitizer, so they are in the `folds`
// suite with the calibration folds (tests/CMakeLists.txt), out of the sanitizer pass; the fitting code
// they run is the one every other decide test runs there through the shipped fit.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "decide/estimate.hpp"
#include "decide/prediction.hpp"
#include "support/decide_query.hpp"
#include "support/published_evidence.hpp"

namespace ecocompute::decide {
namespace refit_cases {

using ::ecocompute::testing::published_evidence;
using data::Basis;

constexpr double kLlama3_8B = 8.030261248;  // the measured shape's parameters

Query ask(double n, const std::string& gpu, const std::string& precision) {
  return ::ecocompute::testing::ask_query(n, gpu, precision);
}

Figure delta(const Query& q) {
  auto p = predict(published_evidence(), q);
  EXPECT_TRUE(p) << p.error().describe();
  return p && p->delta ? *p->delta : Figure{};
}

double width(const EstimateResponse& e) { return *e.ci_high_pct - *e.ci_low_pct; }

TEST(AnswerBasis, ABatchASessionMeasuredIsMeasuredNotModelled) {
  // The evidence plus one row of the 7 B NF4 session measured at batch 8 (what a batch campaign brings).
  const Evidence& shipped = published_evidence();
  EstimateRequest r;
  r.params_b = 7;
  r.gpu = "RTX 4090";
  r.precision = "NF4";
  r.batch = 8;
  auto modelled = estimate(r, shipped);
  ASSERT_TRUE(modelled) << modelled.error().describe();
  EXPECT_EQ(modelled->basis, Basis::modelled);
  EXPECT_TRUE(modelled->prediction.modelled);
  std::vector<data::DataRow> rows = shipped.rows;
  const auto one = std::find_if(rows.begin(), rows.end(), [&](const data::DataRow& row) {
    return row.gpu == "RTX 4090" && row.precision == "NF4" && row.params_b == 7 && row.batch_size == 1;
  });
  ASSERT_NE(one, rows.end());
  data::DataRow batch8 = *one;
  batch8.row_key += "|b8";
  batch8.batch_size = 8;
  batch8.fp16_energy_per_token_mj = one->fp16_energy_per_token_mj * 0.7;
  batch8.energy_per_token_mj = batch8.fp16_energy_per_token_mj * 0.8;  // ΔE −20 % at batch 8
  rows.push_back(batch8);
  const Evidence with_batch = evidence_from(rows, shipped.sessions);
  auto measured = estimate(r, with_batch);
  ASSERT_TRUE(measured) << measured.error().describe();
  EXPECT_EQ(measured->basis, Basis::measured);
  EXPECT_FALSE(measured->prediction.modelled);
  EXPECT_NEAR(*measured->delta_pct, -20.0, 2.0);  // the model's mean for a card there, near the one measured
  ASSERT_TRUE(measured->prediction.energy);
  EXPECT_EQ(measured->prediction.energy->basis.basis, Basis::measured);
  EXPECT_LT(width(*measured), width(*modelled));
}

TEST(Prediction, AFigureNamesTheSessionsOfTheNearestMeasuredPlacesAndListsAFewOfMany) {
  // 8.0 B lies between the measured 7.62 B (Qwen2-7B) and 8.03 B (Llama-3-8B), each on the H200 and on the
  // other Hopper card, the H100: the interpolated figure names the sessions of those places, not of every size
  // measured (0.49–14.8 B).
  const Figure below = delta(ask(7.615616512, "H200", "Q4_K_M"));
  const Figure below_on_h100 = delta(ask(7.615616512, "H100 SXM", "Q4_K_M"));
  const Figure above = delta(ask(kLlama3_8B, "H200", "Q4_K_M"));
  const Figure above_on_h100 = delta(ask(kLlama3_8B, "H100 SXM", "Q4_K_M"));
  const Figure between = delta(ask(8.0, "H200", "Q4_K_M"));
  ASSERT_EQ(below.basis.basis, Basis::measured);
  ASSERT_EQ(below_on_h100.basis.basis, Basis::measured);
  ASSERT_EQ(above_on_h100.basis.basis, Basis::measured);
  ASSERT_EQ(between.basis.basis, Basis::interpolated);
  EXPECT_EQ(between.basis.session_count, below.basis.session_count + below_on_h100.basis.session_count + above.basis.session_count +
                                             above_on_h100.basis.session_count);
  // A place many cards measured: its answer lists kListedSessions labels and counts them all, so an
  // answer's size does not grow with the store.
  std::vector<data::DataRow> rows = published_evidence().rows;
  const std::size_t original = rows.size();
  for (std::size_t i = 0; i < original; ++i) {
    const data::DataRow r = rows[i];
    if (r.precision != "Q4_0" || std::abs(r.params_b - kLlama3_8B) > 1e-6 || r.batch_size != 1) continue;
    for (int copy = 0; copy < 15; ++copy) {
      data::DataRow again = r;
      again.session_id = r.session_id + "-card-" + std::to_string(copy);
      rows.push_back(again);
    }
  }
  const Evidence many = evidence_from(std::move(rows), published_evidence().sessions);
  auto p = predict(many, ask(kLlama3_8B, "H200", "Q4_0"));
  ASSERT_TRUE(p && p->delta);
  EXPECT_EQ(p->delta->basis.session_count, 32u);  // the two shipped cards and 30 copies
  EXPECT_EQ(p->delta->basis.sessions.size(), data::kListedSessions);
  EXPECT_NE(p->delta->basis.label.find("and 20 more"), std::string::npos) << p->delta->basis.label;
}

}  // namespace refit_cases
}  // namespace ecocompute::decide
