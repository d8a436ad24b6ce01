// Tests of the rules an upload meets beyond its schema: a closed list of energy sources, a measured
// basis only with one that reads energy, a stated ΔE its energies confirm, plausible numbers.
#include "report/upload_rules.hpp"

#include <gtest/gtest.h>

#include "golden_reports.hpp"

namespace ecocompute::report {
namespace {

using testing::published_1_1_report;
using testing::read_golden_report;

std::string violation(const EnergyReport& r) { return upload_rule_violation(r).value_or(""); }

TEST(UploadRules, OurReportsAndThePublishedOnePass) {
  EXPECT_EQ(violation(published_1_1_report()), "");
  for (const EnergyReport& r : testing::golden_reports(true)) EXPECT_EQ(violation(r), "") << r.workload.precision;
  for (const EnergyReport& r : testing::golden_reports(false)) EXPECT_EQ(violation(r), "") << r.workload.precision;
}

TEST(UploadRules, SourcesOutsideTheClosedListAreRefused) {
  for (const char* words : {"Estimated (TDP x time)", "simulated", "calculated from spec sheet", "direct-nvml ",
                            "DIRECT-NVML", "nvml"}) {
    EnergyReport r = published_1_1_report();
    r.measurement_source = words;
    EXPECT_NE(violation(r).find(std::string("\"") + words + "\" is not one of"), std::string::npos)
        << words << ": " << violation(r);
    r.results.basis = ResultBasis::interpolated;  // not claimed as measured: still not a source we know
    EXPECT_NE(violation(r), "") << words;
  }
}

TEST(UploadRules, AMeasuredBasisNeedsASourceThatReadEnergy) {
  EnergyReport r = published_1_1_report();
  r.measurement_source = "rapl";
  EXPECT_EQ(violation(r), "");
  r.measurement_source = "none";
  EXPECT_NE(violation(r).find("no energy counter read its windows"), std::string::npos) << violation(r);
  r.measurement_source.reset();
  EXPECT_NE(violation(r).find("measurement_source is absent"), std::string::npos) << violation(r);
  r.results.basis = ResultBasis::interpolated;  // an estimate need not say what read it
  EXPECT_EQ(violation(r), "");
  EnergyReport no_energy = published_1_1_report();
  no_energy.results.energy_per_token_mj.reset();
  EXPECT_NE(violation(no_energy).find("must carry its measured energy"), std::string::npos);
}

TEST(UploadRules, ValuesMarkedIllustrativeAreNotAMeasurement) {
  // The published example of the measured format says, in its note, that its values are hand-written.
  EnergyReport r = published_1_1_report();
  r.results.note = "ILLUSTRATIVE synthetic values, provided only to document the measured-path output format.";
  EXPECT_NE(violation(r).find("marks its values as not a real measurement: results.note says"), std::string::npos)
      << violation(r);
  r.results.basis = ResultBasis::unavailable;  // not claimed as measured: nothing to refuse
  r.results.energy_per_token_mj.reset();
  EXPECT_EQ(violation(r), "");
}

TEST(UploadRules, AStatedDeltaTheEnergiesContradictIsRefused) {
  // Energies giving −10 %: 900 against 1000 mJ.
  EnergyReport r = published_1_1_report();
  r.results.energy_per_token_mj = 900.0;
  r.results.fp16_energy_per_token_mj = 1000.0;
  r.results.vs_fp16_energy_pct = -90.0;
  EXPECT_NE(violation(r).find("= -10.000 %"), std::string::npos) << violation(r);
  r.results.vs_fp16_energy_pct = -10.0;
  EXPECT_EQ(violation(r), "");
  r.results.vs_fp16_energy_pct = -10.04;  // rounding: within max(0.05 pp, 0.5 % of 10) = 0.05 pp
  EXPECT_EQ(violation(r), "");
  r.results.vs_fp16_energy_pct = -10.1;
  EXPECT_NE(violation(r), "");
  // The published one states 31.12 for (1827.749 − 1393.944) / 1393.944 = 31.121 %; 31.1 is rounding.
  EnergyReport published = published_1_1_report();
  published.results.vs_fp16_energy_pct = 31.1;
  EXPECT_EQ(violation(published), "");
  published.results.vs_fp16_energy_pct = 35.0;
  EXPECT_NE(violation(published), "");
  // Without a baseline energy there is nothing to recompute: the stated value stands as stated.
  published.results.fp16_energy_per_token_mj.reset();
  EXPECT_EQ(violation(published), "");
}

TEST(UploadRules, A12ReportStatesItsPairedMeanWithinItsOwnCi) {
  // Golden Q8_0: energies give (1072.617 − 1171.875) / 1171.875 = −8.47 %; paired mean −8.00, CI ±25.4.
  EnergyReport r = read_golden_report("energy/energy-Q8_0.json");
  r.results.vs_fp16_energy_pct = -9.0;  // not the statistics' mean
  EXPECT_NE(violation(r).find("is not statistics.vs_fp16_energy_pct.mean"), std::string::npos) << violation(r);
  r.results.vs_fp16_energy_pct = -40.0;
  r.statistics->vs_fp16_energy_pct.mean = -40.0;  // consistent with itself, not with its energies
  EXPECT_NE(violation(r).find("disagrees with the energies"), std::string::npos) << violation(r);
  r.statistics->vs_fp16_energy_pct.ci95_low = -80.0;  // a CI that wide covers the energies' −8.47 %
  r.statistics->vs_fp16_energy_pct.ci95_high = 0.0;
  EXPECT_EQ(violation(r), "");
}

}  // namespace
}  // namespace ecocompute::report
