// compare of two precisions from one run: paired block by block, as measure pairs them.
#include <gtest/gtest.h>

#include <filesystem>

#include "data/comparison.hpp"
#include "data/in_run_comparison.hpp"
#include "report/energy_report.hpp"
#include "util/statistics.hpp"

namespace ecocompute::data {
namespace {

const std::filesystem::path kRun =
    std::filesystem::path(ECOCOMPUTE_SOURCE_DIR) / "data" / "sessions" / "h200-2026-12-03-llama3-8b-atlas-b1-accept-throttled";

report::EnergyReport read(const char* name) {
  auto r = report::read_energy_report(kRun / name);
  EXPECT_TRUE(r.has_value()) << (kRun / name);
  return r.value_or(report::EnergyReport{});
}

TEST(InRunComparison, F16AgainstQ4KMOfOneRunIsTheRunsOwnPairedDelta) {
  const report::EnergyReport f16 = read("energy-F16.json");
  const report::EnergyReport q4 = read("energy-Q4_K_M.json");
  const Comparison c = compare(side_from_report(f16, "F16"), side_from_report(q4, "Q4_K_M"));
  ASSERT_TRUE(c.in_run.has_value()) << "two precisions of one run must be compared, not left unmatched";
  EXPECT_EQ(c.in_run->precision_b, "Q4_K_M");
  // The same pairing as measure's own: the report's paired ΔE vs its F16 baseline.
  const report::PairedDelta& own = q4.statistics->vs_fp16_energy_pct;
  EXPECT_EQ(c.in_run->n_pairs, static_cast<std::size_t>(own.n_pairs));
  ASSERT_TRUE(own.mean && c.in_run->ci95_low_pct);
  EXPECT_NEAR(c.in_run->delta_pct, *own.mean, 1e-6);
  EXPECT_NEAR(*c.in_run->ci95_low_pct, *own.ci95_low, 1e-6);
  EXPECT_LT(*c.in_run->ci95_high_pct, 0.0);
  const std::string text = to_text(c);
  EXPECT_NE(text.find("paired by trial block"), std::string::npos) << text;
  EXPECT_EQ(text.find("unmatched"), std::string::npos) << text;
}

TEST(InRunComparison, TwoCandidatesAreComparedWithEachOther) {
  const auto c = compare_in_run(read("energy-Q8_0.json"), read("energy-Q4_0.json"));
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->precision_a, "Q8_0");
  EXPECT_LT(c->delta_pct, 0.0) << "Q4_0 uses less energy per token than Q8_0 at 8 B, batch 1, in this run";
  EXPECT_TRUE(c->throughput_ratio_pct.has_value());
}

TEST(InRunComparison, ReportsOfDifferentRunsOrTheSamePrecisionAreNotPaired) {
  const report::EnergyReport q4 = read("energy-Q4_K_M.json");
  report::EnergyReport other_run = read("energy-F16.json");
  other_run.provenance->run_id = "another-run";
  EXPECT_FALSE(compare_in_run(other_run, q4).has_value());
  EXPECT_FALSE(compare_in_run(q4, q4).has_value());
  report::EnergyReport other_batch = read("energy-F16.json");
  other_batch.workload.batch_size = 8;
  EXPECT_FALSE(compare_in_run(other_batch, q4).has_value());
}

}  // namespace
}  // namespace ecocompute::data
