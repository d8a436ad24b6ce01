// Tests of the campaign rule in fit_curve_set: sessions of one GPU model and one engine build that each
// measured other sizes are fitted together when they cover more sizes than any one session.
#include "data/curve_set.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace ecocompute::data {
namespace {

Session session(std::string id, std::string gpu, std::string engine_version) {
  Session s;
  s.id = std::move(id);
  s.label = s.id;
  s.gpu = std::move(gpu);
  s.gpu_arch = "hopper";
  s.engine = "llama.cpp";
  s.engine_version = std::move(engine_version);
  s.date = "2026-11-30";
  return s;
}

// A Q4_0 row saving `saving` % at `params_b`, with a 0.3-pt CI.
DataRow row(const std::string& session_id, double params_b, double saving) {
  DataRow r;
  r.session_id = session_id;
  r.row_key = session_id + std::to_string(params_b);
  r.gpu = "NVIDIA H200";
  r.gpu_arch = "hopper";
  r.engine = "llama.cpp";
  r.params_b = params_b;
  r.precision = "Q4_0";
  r.fp16_energy_per_token_mj = 1000;
  r.energy_per_token_mj = 1000 * (1 - saving / 100);
  r.n_trials = 3;
  r.delta_ci95_low_pct = -saving - 0.3;
  r.delta_ci95_high_pct = -saving + 0.3;
  return r;
}

const Curve& only_curve(const CurveSet& set) {
  EXPECT_EQ(set.curves.size(), 1u);
  return set.curves.front();
}

TEST(CampaignCurve, SessionsOfOneStackOnOtherCardsAreFittedTogether) {
  // Card a measured 0.5 and 1.5 B, card b 3 and 8 B: no session alone has more than two sizes.
  const std::vector<Session> sessions{session("a", "NVIDIA H200", "v0.4.0 (80fb11ac)"),
                                      session("b", "NVIDIA H200", "v0.4.0 (80fb11ac)")};
  const std::vector<DataRow> rows{row("a", 0.5, 47), row("a", 1.5, 53), row("b", 3.2, 51), row("b", 8.0, 52)};
  auto set = fit_curve_set(rows, sessions);
  ASSERT_TRUE(set) << set.error().message();
  const Curve& c = only_curve(*set);
  EXPECT_EQ(c.session_ids.size(), 2u);
  EXPECT_NE(c.session_label.find("campaign: 2 sessions"), std::string::npos) << c.session_label;
  EXPECT_NE(c.session_label.find("4 sizes"), std::string::npos) << c.session_label;
  EXPECT_DOUBLE_EQ(c.fit.range_min_b, 0.5);
  EXPECT_DOUBLE_EQ(c.fit.range_max_b, 8.0);
}

TEST(CampaignCurve, AnotherEngineBuildOrGpuModelIsNotPartOfTheCampaign) {
  const std::vector<Session> sessions{session("a", "NVIDIA H200", "v0.4.0"), session("b", "NVIDIA H200", "v0.3.9"),
                                      session("c", "NVIDIA H100", "v0.4.0")};
  const std::vector<DataRow> rows{row("a", 0.5, 47), row("a", 1.5, 53), row("b", 3.2, 51), row("b", 8.0, 52),
                                  row("c", 14.0, 50), row("c", 32.0, 49)};
  auto set = fit_curve_set(rows, sessions);
  ASSERT_TRUE(set) << set.error().message();
  const Curve& c = only_curve(*set);
  EXPECT_EQ(c.session_ids.size(), 1u) << c.session_label;
}

TEST(CampaignCurve, PublishedSessionsWithoutAnEngineVersionAreNeverPooled) {
  const std::vector<Session> sessions{session("a", "RTX 4090", ""), session("b", "RTX 4090", "")};
  const std::vector<DataRow> rows{row("a", 0.5, 47), row("a", 1.5, 53), row("b", 3.2, 51), row("b", 8.0, 52)};
  auto set = fit_curve_set(rows, sessions);
  ASSERT_TRUE(set) << set.error().message();
  EXPECT_EQ(only_curve(*set).session_ids.size(), 1u);
}

TEST(CampaignCurve, ASessionWithAsManySizesAsTheCampaignKeepsTheCurve) {
  const std::vector<Session> sessions{session("a", "NVIDIA H200", "v0.4.0"), session("b", "NVIDIA H200", "v0.4.0")};
  // b alone covers every size the two cover together: its own curve, not a pooled one.
  const std::vector<DataRow> rows{row("a", 0.5, 47), row("a", 1.5, 53), row("b", 0.5, 46), row("b", 1.5, 52),
                                  row("b", 3.2, 51)};
  auto set = fit_curve_set(rows, sessions);
  ASSERT_TRUE(set) << set.error().message();
  const Curve& c = only_curve(*set);
  ASSERT_EQ(c.session_ids.size(), 1u);
  EXPECT_EQ(c.session_ids.front(), "b");
}

TEST(CampaignCurve, AskingForOneSessionIsHonoured) {
  const std::vector<Session> sessions{session("a", "NVIDIA H200", "v0.4.0"), session("b", "NVIDIA H200", "v0.4.0")};
  const std::vector<DataRow> rows{row("a", 0.5, 47), row("a", 1.5, 53), row("b", 3.2, 51), row("b", 8.0, 52)};
  CurveSetOptions options;
  options.session = "b";
  auto set = fit_curve_set(rows, sessions, options);
  ASSERT_TRUE(set) << set.error().message();
  const Curve& c = only_curve(*set);
  ASSERT_EQ(c.session_ids.size(), 1u);
  EXPECT_EQ(c.session_ids.front(), "b");
}

}  // namespace
}  // namespace ecocompute::data
