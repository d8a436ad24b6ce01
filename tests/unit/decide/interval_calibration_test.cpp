// Tests of the calibration of intervals: the conformal quantile, the score of a held-out answer
// against the coverage rule of `calibrate`, the factors file and its digest, an answer scaled by its
// class's factor, and the out-of-fold coverage `calibrate` reports.
#include "decide/interval_calibration.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>

#include <unistd.h>

#include "decide/calibration.hpp"
#include "decide/prediction.hpp"
#include "support/decide_query.hpp"
#include "support/published_evidence.hpp"

namespace ecocompute::decide {
namespace interval_calibration_cases {

using ::ecocompute::testing::published_evidence;

std::vector<double> one_to(int n) {
  std::vector<double> v(static_cast<std::size_t>(n));
  std::iota(v.begin(), v.end(), 1.0);
  return v;
}

TEST(IntervalCalibration, TheConformalQuantileNeedsNineteenScoresForNinetyFivePercent) {
  EXPECT_EQ(conformal_quantile(one_to(19), 0.95), 19.0);  // ⌈0.95 × 20⌉ = 19
  EXPECT_FALSE(conformal_quantile(one_to(18), 0.95));     // ⌈0.95 × 19⌉ = 19 > 18: no finite factor
  EXPECT_EQ(conformal_quantile(one_to(100), 0.95), 96.0);  // ⌈0.95 × 101⌉ = 96
  std::vector<double> shuffled{5, 1, 4, 2, 3, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6};
  EXPECT_EQ(conformal_quantile(shuffled, 0.95), 20.0);  // order does not matter
}

TEST(IntervalCalibration, AScoreOfOneIsTheEdgeOfTheIntervalWithTheMeasurementNoise) {
  const double mean = std::log(0.6), half = 0.1;  // ΔE −40 %, interval 100 (e^(mean ∓ 0.1) − 1)
  const double high = 100 * (std::exp(mean + half) - 1), low = 100 * (std::exp(mean - half) - 1);
  EXPECT_DOUBLE_EQ(coverage_score(mean, half, -40.0, 0.0), 0.0);
  EXPECT_NEAR(coverage_score(mean, half, high, 0.0), 1.0, 1e-12);
  EXPECT_NEAR(coverage_score(mean, half, low, 0.0), 1.0, 1e-12);
  // Twice as far on the log scale needs twice the half-width.
  EXPECT_NEAR(coverage_score(mean, half, 100 * (std::exp(mean + 2 * half) - 1), 0.0), 2.0, 1e-12);
  // The noise is added in quadrature on each side, as calibrate's coverage rule adds it.
  const double miss = high + 40.0, noise = 3.0;
  const double widened = -40.0 + std::hypot(miss, noise);
  EXPECT_NEAR(coverage_score(mean, half, widened, noise), 1.0, 1e-9);
  EXPECT_DOUBLE_EQ(coverage_score(mean, half, -38.0, 5.0), 0.0);  // within the noise alone
  EXPECT_TRUE(std::isinf(coverage_score(mean, half, -100.0, 0.0)));
  EXPECT_TRUE(std::isinf(coverage_score(mean, 0.0, -30.0, 0.0)));
}

TEST(IntervalCalibration, TheFileIsReadOnlyForTheEvidenceItWasComputedOn) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("interval_calibration_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  IntervalCalibration c;
  c.evidence_digest = "abc";
  c.classes = {{data::Basis::measured, Extent::card, 40, 1.5}, {data::Basis::borrowed, Extent::size, 3, std::nullopt}};
  std::ofstream(dir / "c.json") << Json(c).dump();
  const auto read = calibration_for("abc", dir / "c.json");
  ASSERT_NE(read, nullptr);
  ASSERT_NE(read->find(data::Basis::measured, Extent::card), nullptr);
  EXPECT_EQ(read->find(data::Basis::measured, Extent::card)->factor, 1.5);
  EXPECT_EQ(read->find(data::Basis::borrowed, Extent::size)->factor, std::nullopt);
  EXPECT_EQ(read->find(data::Basis::interpolated, Extent::size), nullptr);
  // A class too thin for a factor of its own takes the widest of the classes on more evidence.
  EXPECT_EQ(read->for_answer(data::Basis::borrowed, Extent::size), read->find(data::Basis::measured, Extent::card));
  EXPECT_EQ(read->for_answer(data::Basis::modelled, Extent::batch), read->find(data::Basis::measured, Extent::card));
  EXPECT_EQ(read->for_answer(data::Basis::measured, Extent::card), read->find(data::Basis::measured, Extent::card));
  EXPECT_EQ(read->for_answer(data::Basis::measured, Extent::size), nullptr);  // nothing rests on more evidence than measured
  EXPECT_EQ(calibration_for("other evidence", dir / "c.json"), nullptr);
  EXPECT_EQ(calibration_for("abc", dir / "missing.json"), nullptr);
  std::ofstream(dir / "bad.json") << R"({"evidence_digest": "abc", "classes": [{"basis": "measured", "extent": "card", "factor": -1}]})";
  EXPECT_EQ(calibration_for("abc", dir / "bad.json"), nullptr);
  std::ofstream(dir / "odd.json") << R"({"evidence_digest": "abc", "classes": [{"basis": "measured", "extent": "planet"}]})";
  EXPECT_EQ(calibration_for("abc", dir / "odd.json"), nullptr);
  std::ofstream(dir / "text.json") << "not json";
  EXPECT_EQ(calibration_for("abc", dir / "text.json"), nullptr);
  std::filesystem::remove_all(dir);
}

TEST(IntervalCalibration, AnAnswerIsScaledByTheFactorOfItsClass) {
  Evidence raw = published_evidence();
  raw.calibration = nullptr;
  const Query q = ::ecocompute::testing::ask_query(8.030261248, "H200", "Q4_K_M", 16);
  auto model = predict(raw, q);
  ASSERT_TRUE(model && model->delta);
  EXPECT_FALSE(model->delta->calibration);
  EXPECT_EQ(model->delta->basis.basis, data::Basis::measured);
  EXPECT_EQ(model->delta->extent, Extent::card);
  Evidence scaled = raw;
  auto c = std::make_shared<IntervalCalibration>();
  c->evidence_digest = raw.model->digest;
  c->classes = {{data::Basis::measured, Extent::card, 100, 2.0}};
  scaled.calibration = c;
  auto answer = predict(scaled, q);
  ASSERT_TRUE(answer && answer->delta);
  ASSERT_TRUE(answer->delta->calibration);
  const auto log_half = [](const Figure& f) { return (std::log1p(f.high / 100) - std::log1p(f.low / 100)) / 2; };
  EXPECT_NEAR(log_half(*answer->delta), 2.0 * log_half(*model->delta), 1e-9);
  EXPECT_DOUBLE_EQ(answer->delta->value, model->delta->value);
  // The format's energy carries the scaled ΔE variance; F16's own energy is not ΔE and keeps its interval.
  EXPECT_GT(answer->energy->high - answer->energy->low, model->energy->high - model->energy->low);
  EXPECT_DOUBLE_EQ(answer->fp16_energy->high, model->fp16_energy->high);
  // A class without a finite factor, and none on more evidence, keeps the model's interval and says it was looked up.
  c->classes = {{data::Basis::measured, Extent::card, 12, std::nullopt}};
  auto kept = predict(scaled, q);
  ASSERT_TRUE(kept && kept->delta && kept->delta->calibration);
  EXPECT_DOUBLE_EQ(kept->delta->high, model->delta->high);
  // A size no session measured lacks its size.
  auto between = predict(raw, ::ecocompute::testing::ask_query(5.0, "H200", "Q4_K_M", 16));
  ASSERT_TRUE(between && between->delta);
  EXPECT_EQ(between->delta->extent, Extent::size);
}

// A predictor that answers every cell `offset` points from its measured ΔE with a ±`half` interval.
PredictorFactory off_by(double half, double offset) {
  return [=](const std::vector<data::DataRow>&, const std::vector<data::Session>&) -> Result<CellPredictor> {
    return CellPredictor([=](const Cell& c) -> std::optional<HeldOutAnswer> {
      const double answer = delta_pct_of(c.value) + offset;
      return HeldOutAnswer{answer, answer - half, answer + half, data::Basis::interpolated, Extent::size};
    });
  };
}

TEST(IntervalCalibration, IntervalsTooNarrowForTheirMissesAreWidenedOutOfFold) {
  const Evidence& e = published_evidence();
  auto report = calibrate(e.rows, e.sessions, off_by(1.0, 4.0), {HoldOut::session});
  ASSERT_TRUE(report) << report.error().describe();
  const BasisCoverage& model = report->all.at(data::Basis::interpolated);
  const BasisCoverage& calibrated = report->all_calibrated.at(data::Basis::interpolated);
  EXPECT_EQ(calibrated.n, model.n);
  EXPECT_LT(model.coverage(), 0.5);       // 4 points off with ±1: most answers miss
  EXPECT_GE(calibrated.coverage(), 0.9);  // each widened by the factor the other folds' misses need
  EXPECT_GT(calibrated.median_width(), 4 * model.median_width());
  ASSERT_EQ(report->factors.size(), 1u);
  EXPECT_EQ(report->factors.front().extent, Extent::size);
  ASSERT_TRUE(report->factors.front().factor);
  EXPECT_GT(*report->factors.front().factor, 3.0);
  // Intervals wider than their misses need are narrowed.
  auto wide = calibrate(e.rows, e.sessions, off_by(20.0, 1.0), {HoldOut::session});
  ASSERT_TRUE(wide);
  EXPECT_LT(wide->all_calibrated.at(data::Basis::interpolated).median_width(), 0.5 * wide->all.at(data::Basis::interpolated).median_width());
}

TEST(IntervalCalibration, TheShippedFactorsAreThoseOfTheShippedEvidence) {
  // data/interval-calibration.json holds the factors `ecocompute calibrate --write` computed on the
  // shipped evidence; evidence shipped since without calibrating again would leave answers with the
  // model's own intervals. Run: ecocompute calibrate --write data/interval-calibration.json
  const Evidence& e = published_evidence();
  ASSERT_NE(e.calibration, nullptr) << "data/interval-calibration.json is missing or was computed on other evidence than the shipped "
                                       "(evidence digest "
                                    << e.model->digest << ")";
  EXPECT_EQ(e.calibration->evidence_digest, e.model->digest);
  EXPECT_FALSE(e.calibration->classes.empty());
}

}  // namespace interval_calibration_cases
}  // namespace ecocompute::decide
