// Tests of the verdict table, read from the golden reports.
#include "report/verdict_table.hpp"

#include <gtest/gtest.h>

#include "golden_reports.hpp"
#include "support/golden.hpp"

namespace ecocompute::report {
namespace {

using testing::golden_reports;

TEST(VerdictTable, MatchesGoldenFiles) {
  ecocompute::testing::expect_golden("console/verdict.txt", format_verdict_table(golden_reports(true)));
  ecocompute::testing::expect_golden("console/verdict-no-energy.txt", format_verdict_table(golden_reports(false)));
}

TEST(VerdictTable, ShowsDeltaWithCiHalfWidth) {
  const std::string table = format_verdict_table(golden_reports(true));
  // Q4_K_M: −30.00 ± 4.97 (half-width 4.968275); ΔPPL +5.00 ± 0.20; KLD 0.0200; 256.0 tok/s; 210.0 W.
  EXPECT_NE(table.find("-30.00 ± 4.97"), std::string::npos) << table;
  EXPECT_NE(table.find("+5.00 ± 0.20"), std::string::npos) << table;
  EXPECT_NE(table.find("0.0200"), std::string::npos) << table;
  EXPECT_NE(table.find("2 (1 failed)"), std::string::npos) << table;
}

TEST(VerdictTable, ThroughputIsTheMedianTrialAndItsRatioIsPairedByBlock) {
  std::vector<EnergyReport> reports = golden_reports(true);
  EnergyReport& q4 = reports.back();
  ASSERT_TRUE(q4.trials && q4.trials->size() == 3);
  // One slow window: tokens over 4x the duration. The mean would drop to ~192 tok/s; the median stays.
  q4.trials->at(0).decode->duration_s *= 4.0;
  const std::string table = format_verdict_table(reports);
  EXPECT_NE(table.find("  256.0  "), std::string::npos) << table;
  // Paired by block against F16 (160 tok/s in every block): +60, +60 and (64 − 160)/160 = −60 %:
  // mean +20.0, t(2) half-width 4.303 · 69.28 / √3 = 172.1.
  EXPECT_NE(table.find("+20.0 ± 172.1"), std::string::npos) << table;
}

TEST(VerdictTable, ABatchAboveOneIsNamedInItsRow) {
  std::vector<EnergyReport> reports = golden_reports(true);
  reports.push_back(reports.back());
  reports.back().workload.batch_size = 16;
  const std::string table = format_verdict_table(reports);
  EXPECT_NE(table.find("\nQ4_K_M/b16 "), std::string::npos) << table;
  EXPECT_NE(table.find("\nQ4_K_M "), std::string::npos) << table;  // batch 1 keeps the plain name
  EXPECT_EQ(table.find("/b1 "), std::string::npos) << table;
}

TEST(VerdictTable, ABaselineWithNoValidTrialIsNotCalledANoEnergySourceRun) {
  // The counter read the windows (source direct-nvml) but every baseline trial failed: the rows say
  // which figure is missing and why, and the footer does not claim that no energy source was readable.
  std::vector<EnergyReport> reports = golden_reports(true);
  reports[0].results.basis = ResultBasis::unavailable;
  reports[0].results.energy_per_token_mj.reset();
  reports[0].statistics->n_trials = 0;
  reports[0].statistics->n_failed = 3;
  for (std::size_t i = 1; i < reports.size(); ++i) reports[i].results.vs_fp16_energy_pct.reset();
  const std::string table = format_verdict_table(reports);
  EXPECT_NE(table.find("n/a: no valid trial"), std::string::npos) << table;
  EXPECT_NE(table.find("n/a: no baseline pair"), std::string::npos) << table;
  EXPECT_NE(table.find("No valid trial: every trial of that row failed"), std::string::npos) << table;
  EXPECT_EQ(table.find("no energy source"), std::string::npos) << table;
}

TEST(VerdictTable, PublishedReportShowsItsStatedDelta) {
  const std::string table = format_verdict_table(std::vector<EnergyReport>{testing::published_1_1_report()});
  // The 1.1 report's own ΔE (no CI: one report is n = 1), its ΔPPL, and no trials column figure.
  EXPECT_NE(table.find("NF4"), std::string::npos) << table;
  EXPECT_NE(table.find("+31.12"), std::string::npos) << table;
  EXPECT_NE(table.find("+9.45"), std::string::npos) << table;
}

}  // namespace
}  // namespace ecocompute::report
