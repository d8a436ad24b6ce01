// compare: a between-session difference of ΔE set beside the two sessions' own 95 % CIs.
#include <gtest/gtest.h>

#include <filesystem>

#include "data/comparison.hpp"
#include "report/energy_report.hpp"

namespace ecocompute::data {
namespace {

namespace fs = std::filesystem;

report::EnergyReport measured_report() {
  auto r = report::read_energy_report(fs::path(ECOCOMPUTE_SOURCE_DIR) / "tests/golden/energy/energy-Q8_0.json");
  EXPECT_TRUE(r) << r.error().describe();
  return r.value_or(report::EnergyReport{});
}

// A second session of the same condition whose ΔE is `shift_pp` points lower, with CI ± half_pp.
report::EnergyReport second_session(const report::EnergyReport& a, double shift_pp, double half_pp) {
  report::EnergyReport b = a;
  const double fp16 = *b.results.fp16_energy_per_token_mj;
  b.results.energy_per_token_mj = *b.results.energy_per_token_mj - fp16 * shift_pp / 100.0;
  const double delta = *b.delta_from_energies();
  b.statistics->vs_fp16_energy_pct.ci95_low = delta - half_pp;
  b.statistics->vs_fp16_energy_pct.ci95_high = delta + half_pp;
  return b;
}

report::EnergyReport with_ci(report::EnergyReport r, double half_pp) {
  const double delta = *r.delta_from_energies();
  r.statistics->vs_fp16_energy_pct.ci95_low = delta - half_pp;
  r.statistics->vs_fp16_energy_pct.ci95_high = delta + half_pp;
  return r;
}

TEST(ComparisonSpread, ADifferenceBeyondBothSessionsCIsIsMarked) {
  const report::EnergyReport a = with_ci(measured_report(), 0.3);
  const Comparison c = compare(side_from_report(a, "a.json"), side_from_report(second_session(a, 2.0, 0.4), "b.json"));
  ASSERT_EQ(c.pairs.size(), 1u);
  const PairedRow& p = c.pairs.front();
  EXPECT_NEAR(*p.difference_pp, -2.0, 1e-9);
  EXPECT_NEAR(*p.ci95_half_a_pp, 0.3, 1e-9);
  EXPECT_NEAR(*p.ci95_half_b_pp, 0.4, 1e-9);
  EXPECT_NEAR(*p.within_sessions_pp, 0.5, 1e-9);  // √(0.3² + 0.4²)
  EXPECT_TRUE(*p.beyond_within_sessions);
  const std::string text = to_text(c);
  EXPECT_NE(text.find("±0.30 ±0.40*"), std::string::npos) << text;
  EXPECT_NE(text.find("more than their own 95 % CIs explain"), std::string::npos) << text;
  const Json json = Json(p);
  EXPECT_EQ(json["beyond_within_sessions"], true);
  EXPECT_NEAR(json["within_sessions_pp"].get<double>(), 0.5, 1e-9);
}

TEST(ComparisonSpread, RowsOfDifferentContextsAreNeverPaired) {
  // A run after a 4096-token prompt and one after a short prompt are different conditions (the context
  // moved ΔE by 12–16 points at batch 1 on the H200): not one configuration measured twice.
  const report::EnergyReport a = with_ci(measured_report(), 0.3);
  report::EnergyReport b = second_session(a, 2.0, 0.4);
  b.workload.prompt_tokens = 4096;
  const Comparison c = compare(side_from_report(a, "a.json"), side_from_report(b, "b.json"));
  EXPECT_TRUE(c.pairs.empty());
  ASSERT_EQ(c.unmatched.size(), 2u);
  EXPECT_NE(c.unmatched.back().find("at context 4096 only in b.json"), std::string::npos) << c.unmatched.back();
  report::EnergyReport a_long = a;
  a_long.workload.prompt_tokens = 4096;
  const Comparison both = compare(side_from_report(a_long, "a.json"), side_from_report(b, "b.json"));
  ASSERT_EQ(both.pairs.size(), 1u);
  EXPECT_EQ(both.pairs.front().context_tokens, 4096);
  EXPECT_EQ(Json(both.pairs.front())["context_tokens"], 4096);
  EXPECT_NE(to_text(both).find("(context 4096)"), std::string::npos) << to_text(both);
}

TEST(ComparisonSpread, ADifferenceInsideTheCIsIsNotMarked) {
  const report::EnergyReport a = with_ci(measured_report(), 3.0);
  const Comparison c = compare(side_from_report(a, "a.json"), side_from_report(second_session(a, 2.0, 4.0), "b.json"));
  ASSERT_EQ(c.pairs.size(), 1u);
  EXPECT_FALSE(*c.pairs.front().beyond_within_sessions);  // 2 < √(3² + 4²) = 5
  EXPECT_EQ(to_text(c).find("more than their own"), std::string::npos);
}

TEST(ComparisonSpread, WithoutCIsThereIsNoVerdict) {
  report::EnergyReport a = measured_report();
  a.statistics.reset();
  const Comparison c = compare(side_from_report(a, "a.json"), side_from_report(a, "b.json"));
  ASSERT_EQ(c.pairs.size(), 1u);
  EXPECT_FALSE(c.pairs.front().within_sessions_pp.has_value());
  EXPECT_FALSE(c.pairs.front().beyond_within_sessions.has_value());
}

TEST(ComparisonSpread, BatchLevelsArePairedLevelByLevelNeverPooled) {
  const report::EnergyReport b1 = with_ci(measured_report(), 0.3);
  report::EnergyReport b4 = b1;
  b4.workload.batch_size = 4;
  b4 = second_session(b4, 10.0, 0.3);  // batch 4 saves 10 points more than batch 1 on both sides
  // Side A: batch 1 and batch 4; side B: the same, each ΔE 2 points lower.
  ComparisonSide a = side_from_report(b1, "a");
  a.rows.push_back(side_from_report(b4, "a").rows.front());
  ComparisonSide b = side_from_report(second_session(b1, 2.0, 0.3), "b");
  b.rows.push_back(side_from_report(second_session(b4, 2.0, 0.3), "b").rows.front());
  const Comparison c = compare(a, b);
  ASSERT_EQ(c.pairs.size(), 2u);
  EXPECT_EQ(c.pairs[0].batch_size, 1);
  EXPECT_EQ(c.pairs[1].batch_size, 4);
  for (const PairedRow& p : c.pairs) {
    EXPECT_NEAR(*p.difference_pp, -2.0, 1e-6) << "batch " << p.batch_size;
    EXPECT_NEAR(*p.delta_a_pct - *c.pairs[0].delta_a_pct, p.batch_size == 4 ? -10.0 : 0.0, 1e-6);
  }
  EXPECT_TRUE(c.unmatched.empty());

  // A level on one side only is named with its batch, not matched to another level.
  ComparisonSide only_one = side_from_report(b1, "b1");
  const Comparison d = compare(only_one, side_from_report(b4, "b4"));
  EXPECT_TRUE(d.pairs.empty());
  ASSERT_EQ(d.unmatched.size(), 2u);
  EXPECT_NE(d.unmatched[1].find("batch 4 only in b4"), std::string::npos) << d.unmatched[1];
  EXPECT_EQ(Json(c.pairs[1])["batch_size"], 4);
}

}  // namespace
}  // namespace ecocompute::data
