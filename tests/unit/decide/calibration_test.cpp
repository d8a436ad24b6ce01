// Tests of the calibration: the folds and the counting, with a fake predictor over the shipped rows,
// and the decision model's own leave-one-session-out coverage on them (the table of
// docs/decision-layer.md, "Calibration"; `ecocompute calibrate` prints all three hold-outs).
#include "decide/calibration.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "decide/model_predictor.hpp"
#include "support/published_evidence.hpp"

namespace ecocompute::decide {
namespace {

using ::ecocompute::testing::published_evidence;

// A predictor that answers every cell with its own measured ΔE ± `half` points, or `offset` away.
PredictorFactory fake(double half, double offset) {
  return [=](const std::vector<data::DataRow>&, const std::vector<data::Session>&) -> Result<CellPredictor> {
    return CellPredictor([=](const Cell& c) -> std::optional<HeldOutAnswer> {
      const double truth = delta_pct_of(c.value) + offset;
      const data::Basis basis = c.place.batch > 1 ? data::Basis::modelled : data::Basis::interpolated;
      return HeldOutAnswer{truth, truth - half, truth + half, basis};
    });
  };
}

TEST(Calibration, CountsCellsInsideAndOutsideTheirIntervalPerBasis) {
  const Evidence& e = published_evidence();
  auto right = calibrate(e.rows, e.sessions, fake(1.0, 0.0), {HoldOut::session, HoldOut::batch});
  ASSERT_TRUE(right) << right.error().describe();
  ASSERT_EQ(right->modes.size(), 2u);
  const ModeCalibration& sessions = right->modes.front();
  std::set<std::string> with_rows;
  for (const data::DataRow& r : e.rows) with_rows.insert(r.session_id);
  EXPECT_EQ(sessions.folds, static_cast<int>(with_rows.size()));  // one fold per session that holds rows
  EXPECT_EQ(sessions.refused, 0);
  int cells = 0;
  for (const auto& [basis, b] : sessions.by_basis) {
    EXPECT_EQ(b.covered, b.n);
    cells += b.n;
  }
  EXPECT_EQ(cells, static_cast<int>(ratio_cells(e.rows).size()));
  // The batch hold-out holds out batch cells only.
  for (const auto& [basis, b] : right->modes.back().by_basis) { EXPECT_EQ(basis, data::Basis::modelled); }
  // A sample of the folds: every third session from the first, in the sessions' sorted order.
  auto sampled = calibrate(e.rows, e.sessions, fake(1.0, 0.0), {HoldOut::session}, 3);
  ASSERT_TRUE(sampled) << sampled.error().describe();
  EXPECT_EQ(sampled->modes.front().folds, static_cast<int>((with_rows.size() + 2) / 3));
  const std::vector<std::string> ordered(with_rows.begin(), with_rows.end());
  ASSERT_FALSE(sampled->modes.front().cells.empty());
  for (const HeldOutCell& c : sampled->modes.front().cells) {
    const auto at = std::find(ordered.begin(), ordered.end(), c.group) - ordered.begin();
    EXPECT_EQ(at % 3, 0) << c.group;
  }
  auto wrong = calibrate(e.rows, e.sessions, fake(1.0, 50.0), {HoldOut::session});
  ASSERT_TRUE(wrong);
  for (const auto& [basis, b] : wrong->modes.front().by_basis) { EXPECT_EQ(b.covered, 0); }
  const Json j = *right;
  EXPECT_DOUBLE_EQ(j["modes"]["session"]["bases"]["interpolated"]["coverage"].get<double>(), 1.0);
  EXPECT_GT(j["modes"]["session"]["bases"]["interpolated"]["n"].get<int>(), 0);
  EXPECT_DOUBLE_EQ(j["modes"]["session"]["bases"]["interpolated"]["median_width_pct"].get<double>(), 2.0);
  EXPECT_FALSE(parse_hold_out("card"));
}

TEST(Calibration, TheModelCoversHeldOutSessions) {
  // Leave one session out over the shipped evidence, the model refitted in each fold. The goal is 90–98 %
  // for every basis with 20 held-out cells or more; what the model reaches is written down in
  // docs/decision-layer.md, with why it falls short (sessions on another software build). This guards it
  // on every twelfth session, 4 folds (each fold a refit: every third took 1,333 s of the 2-core CI machine
  // on 2026-12-07 and every sixth 540-1,124 s, the first pass's longest test; `ecocompute calibrate` holds
  // every one out): every held-out cell is answered, and the interpolated figures (25 cells) are the basis
  // with enough cells for a coverage; the others are counted, not judged.
  const Evidence& e = published_evidence();
  auto whole = std::make_shared<const DecisionModel>(DecisionModel::fit(e.rows, nullptr, false));
  auto report = calibrate(e.rows, e.sessions, model_factory(whole), {HoldOut::session}, 12);
  ASSERT_TRUE(report) << report.error().describe();
  const ModeCalibration& sessions = report->modes.front();
  EXPECT_EQ(sessions.refused, 0) << to_text(*report);
  int judged = 0;
  for (const auto& [basis, b] : sessions.by_basis) {
    if (b.n < 20) continue;
    ++judged;
    EXPECT_GE(b.coverage(), 0.75) << to_string(basis) << "\n" << to_text(*report);
    EXPECT_LE(b.coverage(), 1.0);
    EXPECT_GT(b.median_width(), 0.0);
  }
  EXPECT_GE(judged, 1) << "no basis has 20 held-out cells:\n" << to_text(*report);
}

TEST(Calibration, AWholeSizeHeldOutGetsAnIntervalTheDataBound) {
  // Hold out the H200's 8.03 B cells (every format, batch 1–64): the rest measured batches above 1 only
  // at 1.24 B. The batch and size terms' variances and length scales were bounded only by the search's
  // e^5, and REML walked up the ridge where a long-scale term with a huge variance looks like the fixed
  // slopes: the answers at 8 B batch 16 were +7,648 % [−100, 1.4e52]. With each component at most what
  // the family's cells can show (total variance, span of ln size and ln batch), every interval is finite
  // and its upper end below +1,000 % (an energy 11× F16's; the family's cells span 0.46–1.6×).
  const Evidence& e = published_evidence();
  std::vector<data::DataRow> training, held;
  for (const data::DataRow& r : e.rows) {
    const bool eight = r.gpu_arch == "hopper" && r.engine == "llama.cpp" && std::abs(r.params_b - 8.030261248) < 1e-3;
    (eight ? held : training).push_back(r);
  }
  ASSERT_FALSE(held.empty());
  auto predictor = model_factory(e.model)(training, e.sessions);
  ASSERT_TRUE(predictor) << predictor.error().describe();
  int answered = 0;
  for (const Cell& cell : ratio_cells(held)) {
    const auto answer = (*predictor)(cell);
    if (!answer) continue;
    ++answered;
    EXPECT_TRUE(std::isfinite(answer->low_pct) && std::isfinite(answer->high_pct)) << cell.place.precision;
    EXPECT_LT(answer->high_pct, 1000.0) << cell.place.precision << " batch " << cell.place.batch;
    EXPECT_LT(std::abs(answer->delta_pct), 300.0) << cell.place.precision << " batch " << cell.place.batch;
  }
  EXPECT_GT(answered, 20);
}

}  // namespace
}  // namespace ecocompute::decide
