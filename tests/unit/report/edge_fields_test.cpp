// The edge-correction fields of a window and of the uncertainty budget: written, read back, and held
// to the schema's closed spellings.
#include <gtest/gtest.h>

#include "golden_reports.hpp"
#include "report/energy_report.hpp"
#include "report/energy_schema.hpp"

namespace ecocompute::report {
namespace {

EnergyReport corrected_report() {
  EnergyReport report = testing::read_golden_report("energy/energy-Q8_0.json");
  for (TrialReport& trial : *report.trials) {
    if (!trial.decode || !trial.decode->energy_j) continue;
    trial.decode->edge_method = "corrected";
    trial.decode->counter_energy_j = *trial.decode->energy_j - 1.25;
    trial.decode->edge_correction_j = 1.25;
  }
  report.uncertainty->edges = "corrected";
  report.uncertainty->edge_corrections_skipped = 0;
  return report;
}

TEST(EdgeFields, CorrectedWindowsRoundTripAndValidate) {
  const EnergyReport report = corrected_report();
  const OrderedJson json = to_json(report);
  EXPECT_TRUE(validate_energy_json(json).empty()) << describe(validate_energy_json(json));
  auto back = energy_report_from_json(json, "corrected");
  ASSERT_TRUE(back.has_value()) << back.error().describe();
  EXPECT_EQ(to_json(*back).dump(), json.dump());
  const WindowReport& decode = *back->trials->front().decode;
  EXPECT_EQ(decode.edge_method, "corrected");
  EXPECT_DOUBLE_EQ(*decode.edge_correction_j, 1.25);
  EXPECT_EQ(back->uncertainty->edges, "corrected");
  EXPECT_EQ(back->uncertainty->edge_corrections_skipped, 0);
}

TEST(EdgeFields, UnknownEdgeMethodIsASchemaProblem) {
  EnergyReport report = corrected_report();
  report.trials->front().decode->edge_method = "interpolated";
  EXPECT_FALSE(validate_energy_json(to_json(report)).empty());
  report = corrected_report();
  report.uncertainty->edges = "trace";
  EXPECT_FALSE(validate_energy_json(to_json(report)).empty());
}

TEST(EdgeFields, ReportsWithoutTheFieldsStillValidate) {
  EnergyReport report = testing::read_golden_report("energy/energy-Q8_0.json");
  for (TrialReport& trial : *report.trials) {
    for (std::optional<WindowReport>* w : {&trial.prefill, &trial.decode}) {
      if (*w) (*w)->edge_method.reset();
    }
  }
  report.uncertainty->edges.reset();
  EXPECT_TRUE(validate_energy_json(to_json(report)).empty());
}

}  // namespace
}  // namespace ecocompute::report
