// The golden reports (tests/golden/energy/, built by tests/unit/experiment from a hand-computable run)
// and the published 1.1 example, read through the typed report.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "report/energy_report.hpp"
#include "support/golden.hpp"

namespace ecocompute::report::testing {

inline EnergyReport read_golden_report(const std::string& name) {
  auto report = read_energy_report(ecocompute::testing::golden_path(name));
  EXPECT_TRUE(report.has_value()) << name << ": " << (report ? "" : report.error().describe());
  return report.value_or(EnergyReport{});
}

/// The sample run's three reports, baseline first; `with_energy` false: the same run without an energy source.
inline std::vector<EnergyReport> golden_reports(bool with_energy) {
  const std::string suffix = with_energy ? ".json" : "-no-energy.json";
  std::vector<EnergyReport> reports;
  for (const char* precision : {"F16", "Q8_0", "Q4_K_M"}) {
    reports.push_back(read_golden_report(std::string("energy/energy-") + precision + suffix));
  }
  return reports;
}

/// The published system's 1.1 example report (RTX 4090, Qwen2-0.5B, NF4).
inline EnergyReport published_1_1_report() { return read_golden_report("schema/published_1_1.json"); }

/// The published "measured" example whose values are hand-written (tests/unit/data/fixtures/README.md).
inline std::filesystem::path published_illustrative_path() {
  return std::filesystem::path(ECOCOMPUTE_SOURCE_DIR) / "tests" / "unit" / "data" / "fixtures" /
         "energy.measured.illustrative.json";
}

inline EnergyReport published_illustrative_report() {
  auto report = read_energy_report(published_illustrative_path());
  EXPECT_TRUE(report.has_value()) << (report ? "" : report.error().describe());
  return report.value_or(EnergyReport{});
}

}  // namespace ecocompute::report::testing
