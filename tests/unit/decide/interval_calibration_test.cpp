// Tests of the calibration of intervals: the conformal quantile, the score of a held-out answer
// against the coverage rule of `calibrate`, the factors file and its digest, an answer scaled by its
// class's factor, and the out-of-fold coverage `calibrate` reports.
#include "decide/interval_calibration.hpp"

#include <gtest/gtest.h>

#include <algorithm>
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
  c.classes = {{data::Basis::measured, Extent::card, 40, 1.5, std::nullopt}, {data::Basis::borrowed, Extent::size, 3, std::nullopt, 0.2}};
  std::ofstream(dir / "c.json") << Json(c).dump();
  const auto read = calibration_for("abc", dir / "c.json");
  ASSERT_NE(read, nullptr);
  ASSERT_NE(read->find(data::Basis::measured, Extent::card), nullptr);
  EXPECT_EQ(read->find(data::Basis::measured, Extent::card)->factor, 1.5);
  EXPECT_EQ(read->find(data::Basis::borrowed, Extent::size)->factor, std::nullopt);
  EXPECT_EQ(read->find(data::Basis::borrowed, Extent::size)->nearest_size_distance, 0.2);
  EXPECT_EQ(read->find(data::Basis::measured, Extent::card)->nearest_size_distance, std::nullopt);
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
  std::ofstream(dir / "far.json") << R"({"evidence_digest": "abc", "classes": [{"basis": "interpolated", "extent": "size", "factor": 2,
                                        "nearest_size_distance": -0.1}]})";
  EXPECT_EQ(calibration_for("abc", dir / "far.json"), nullptr);
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
  c->classes = {{data::Basis::measured, Extent::card, 100, 2.0, std::nullopt}};
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
  c->classes = {{data::Basis::measured, Extent::card, 12, std::nullopt, std::nullopt}};
  auto kept = predict(scaled, q);
  ASSERT_TRUE(kept && kept->delta && kept->delta->calibration);
  EXPECT_DOUBLE_EQ(kept->delta->high, model->delta->high);
  // A size no session measured lacks its size.
  auto between = predict(raw, ::ecocompute::testing::ask_query(5.0, "H200", "Q4_K_M", 16));
  ASSERT_TRUE(between && between->delta);
  EXPECT_EQ(between->delta->extent, Extent::size);
  // Below every measured size of the format on the architecture, or above: the side is part of the extent.
  const auto extent_at = [&](double params_b, int batch) {
    auto p = predict(raw, ::ecocompute::testing::ask_query(params_b, "H200", "Q4_K_M", batch));
    return p && p->delta ? p->delta->extent : Extent::card;
  };
  EXPECT_EQ(extent_at(0.3, 16), Extent::size_below);
  EXPECT_EQ(extent_at(30.0, 16), Extent::size_above);
  EXPECT_EQ(extent_at(0.3, 40), Extent::size_below_and_batch);  // no card of the architecture ran batch 40
  EXPECT_EQ(extent_at(30.0, 40), Extent::size_above_and_batch);
  EXPECT_EQ(extent_at(5.0, 40), Extent::size_and_batch);
}

TEST(IntervalCalibration, AnAnswerBeyondTheMeasuredSizesTakesTheFactorOfItsSide) {
  using data::Basis;
  IntervalCalibration c;
  c.classes = {{Basis::interpolated, Extent::size, 300, 2.0, 0.1},
               {Basis::extrapolated, Extent::size_below, 60, 1.5, 0.5},
               {Basis::extrapolated, Extent::size_above, 50, 0.5, 0.4}};
  const SizePlace far{1.0, std::nullopt};
  EXPECT_DOUBLE_EQ(c.answer_factor(Basis::extrapolated, Extent::size_below, far).factor, 1.5);
  EXPECT_DOUBLE_EQ(c.answer_factor(Basis::extrapolated, Extent::size_above, far).factor, 0.5);
  // A side with too few held-out answers takes the widest class on more evidence, not the other side's.
  c.classes[1].n = 8;
  c.classes[1].factor = std::nullopt;
  EXPECT_DOUBLE_EQ(c.answer_factor(Basis::extrapolated, Extent::size_below, far).factor, 2.0);
  for (Extent e : {Extent::size_below, Extent::size_above, Extent::size_below_and_batch, Extent::size_above_and_batch}) {
    EXPECT_TRUE(lacks_size(e));
    auto parsed = parse_extent(to_string(e));
    ASSERT_TRUE(parsed);
    EXPECT_EQ(*parsed, e);
  }
  EXPECT_FALSE(lacks_size(Extent::batch));
  EXPECT_FALSE(lacks_size(Extent::context));
}

using data::Basis;

TEST(IntervalCalibration, NearerAMeasuredSizeThanAnyHeldOutAnswerTheFactorIsReadBetweenThatSizesClassAndItsOwn) {
  IntervalCalibration c;
  c.classes = {{Basis::measured, Extent::card, 100, 1.4, std::nullopt},
               {Basis::interpolated, Extent::size, 300, 2.8, 0.1},
               {Basis::extrapolated, Extent::size, 100, 0.9, 0.4},
               {Basis::interpolated, Extent::batch, 50, 0.8, std::nullopt}};
  const auto from_measured = [](double distance) { return SizePlace{distance, std::pair{Basis::measured, Extent::card}}; };
  const AnswerFactor at = c.answer_factor(Basis::interpolated, Extent::size, from_measured(0.0));
  EXPECT_DOUBLE_EQ(at.factor, 1.4);
  const AnswerFactor half = c.answer_factor(Basis::interpolated, Extent::size, from_measured(0.05));
  EXPECT_DOUBLE_EQ(half.factor, 2.1);
  EXPECT_DOUBLE_EQ(half.weight, 0.5);
  EXPECT_EQ(half.own, c.find(Basis::interpolated, Extent::size));
  EXPECT_EQ(half.nearest, c.find(Basis::measured, Extent::card));
  // From the nearest distance calibrated on, the class's own factor.
  const AnswerFactor reach = c.answer_factor(Basis::interpolated, Extent::size, from_measured(0.1));
  EXPECT_DOUBLE_EQ(reach.factor, 2.8);
  EXPECT_EQ(reach.nearest, nullptr);
  EXPECT_DOUBLE_EQ(c.answer_factor(Basis::interpolated, Extent::size, from_measured(0.5)).factor, 2.8);
  EXPECT_DOUBLE_EQ(c.answer_factor(Basis::interpolated, Extent::size, SizePlace{0.05, std::nullopt}).factor, 2.8);
  // Either way: an extrapolated size's factor, smaller than the measured one's, is read down to it.
  EXPECT_DOUBLE_EQ(c.answer_factor(Basis::extrapolated, Extent::size, from_measured(0.2)).factor, 1.15);
  // A class that lacks no size, or keeps no distance, takes its own factor.
  EXPECT_DOUBLE_EQ(c.answer_factor(Basis::interpolated, Extent::batch, from_measured(0.01)).factor, 0.8);
  EXPECT_DOUBLE_EQ(c.answer_factor(Basis::measured, Extent::card, from_measured(0.0)).factor, 1.4);
  const AnswerFactor none = IntervalCalibration{}.answer_factor(Basis::interpolated, Extent::size, from_measured(0.01));
  EXPECT_EQ(none.own, nullptr);
  EXPECT_DOUBLE_EQ(none.factor, 1.0);
}

TEST(IntervalCalibration, AClassLackingItsSizeKeepsTheNearestItsHeldOutAnswersCameToAMeasuredSize) {
  std::map<std::pair<Basis, Extent>, std::vector<ClassScore>> scores;
  for (int i = 0; i < 20; ++i) {
    scores[{Basis::interpolated, Extent::size}].push_back({1.0 + i, 0.3 - 0.01 * i});
    scores[{Basis::interpolated, Extent::card}].push_back({1.0 + i, 0.0});
  }
  const std::vector<ClassFactor> factors = class_factors(scores, 0.95);
  ASSERT_EQ(factors.size(), 2u);
  const auto of = [&](Extent e) { return *std::find_if(factors.begin(), factors.end(), [&](const ClassFactor& f) { return f.extent == e; }); };
  ASSERT_TRUE(of(Extent::size).nearest_size_distance);
  EXPECT_NEAR(*of(Extent::size).nearest_size_distance, 0.11, 1e-12);
  EXPECT_EQ(of(Extent::size).factor, 20.0);
  EXPECT_FALSE(of(Extent::card).nearest_size_distance);
}

TEST(IntervalCalibration, AnIntervalDoesNotStepWhereASizeBecomesMeasured) {
  Evidence e = published_evidence();
  auto c = std::make_shared<IntervalCalibration>();
  c->evidence_digest = e.model->digest;
  c->classes = {{Basis::measured, Extent::card, 100, 1.4, std::nullopt}, {Basis::interpolated, Extent::size, 300, 2.8, 0.05}};
  e.calibration = c;
  const auto log_half = [](const Figure& f) { return (std::log1p(f.high / 100) - std::log1p(f.low / 100)) / 2; };
  auto at = predict(e, ::ecocompute::testing::ask_query(8.030261248, "H200", "Q4_K_M", 16));
  auto near = predict(e, ::ecocompute::testing::ask_query(8.03, "H200", "Q4_K_M", 16));
  auto far = predict(e, ::ecocompute::testing::ask_query(5.0, "H200", "Q4_K_M", 16));
  ASSERT_TRUE(at && at->delta && near && near->delta && far && far->delta);
  EXPECT_EQ(at->delta->basis.basis, Basis::measured);
  EXPECT_DOUBLE_EQ(at->delta->interval_factor(), 1.4);
  EXPECT_EQ(near->delta->basis.basis, Basis::interpolated);
  EXPECT_EQ(near->delta->extent, Extent::size);
  EXPECT_NEAR(near->delta->size_place.distance, std::log(8.030261248 / 8.03), 1e-12);
  EXPECT_DOUBLE_EQ(near->delta->size_place.nearest_params_b, 8.030261248);
  EXPECT_NEAR(near->delta->interval_factor(), 1.4, 1e-3);  // the class's own 2.8 would double the interval 0.003 % away
  EXPECT_NEAR(log_half(*near->delta) / log_half(*at->delta), 1.0, 2e-3);
  EXPECT_NEAR(near->delta->value, at->delta->value, 0.01);
  const Json j = *near->delta;
  EXPECT_EQ(j["interval_calibration"]["nearest_measured_size"]["params_b"], 8.030261248);
  EXPECT_EQ(j["interval_calibration"]["class"]["extent"], "size");
  // Farther than any held-out answer came to a measured size: the class's own factor.
  EXPECT_GT(far->delta->size_place.distance, 0.05);
  EXPECT_DOUBLE_EQ(far->delta->interval_factor(), 2.8);
  EXPECT_TRUE(Json(*far->delta)["interval_calibration"]["nearest_measured_size"].is_null());
}

// A predictor that answers every cell `offset` points from its measured ΔE with a ±`half` interval.
PredictorFactory off_by(double half, double offset) {
  return [=](const std::vector<data::DataRow>&, const std::vector<data::Session>&) -> Result<CellPredictor> {
    return CellPredictor([=](const Cell& c) -> std::optional<HeldOutAnswer> {
      const double answer = delta_pct_of(c.value) + offset;
      return HeldOutAnswer{answer, answer - half, answer + half, data::Basis::interpolated, Extent::size, {}};
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

TEST(IntervalCalibration, WithoutACalibrationOnlyAFoldJudgesTheNearestMeasuredSize) {
  Evidence raw = published_evidence();
  raw.calibration = nullptr;
  const Query q = ::ecocompute::testing::ask_query(5.0, "H200", "Q4_K_M", 16);
  auto plain = predict(raw, q);
  ASSERT_TRUE(plain && plain->delta);
  EXPECT_GT(plain->delta->size_place.distance, 0.0);
  EXPECT_FALSE(plain->delta->size_place.nearest_class);  // nothing would read it: the second judgement is not made
  raw.judge_nearest_size_class = true;  // as calibrate's folds are
  auto fold = predict(raw, q);
  ASSERT_TRUE(fold && fold->delta && fold->delta->size_place.nearest_class);
  EXPECT_EQ(fold->delta->size_place.nearest_class->first, data::Basis::measured);
  EXPECT_DOUBLE_EQ(fold->delta->value, plain->delta->value);  // the judgement moves no number
}

}  // namespace interval_calibration_cases
}  // namespace ecocompute::decide
