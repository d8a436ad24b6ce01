// Two precisions of one `measure` run compared with each other: `compare energy-F16.json
// energy-Q4_K_M.json` of one run has no row in common (each file holds one precision), yet the run
// measured both in the same blocks, so B is paired with A trial by trial as measure pairs a candidate
// with its baseline: the block's ΔE and throughput ratio, then a Student-t interval over blocks.
#pragma once

#include <optional>
#include <string>

#include "report/energy_report.hpp"
#include "util/json.hpp"

namespace ecocompute::data {

struct InRunComparison {
  std::string run_id;
  std::string precision_a, precision_b;
  int batch_size = 1;                 ///< or the Server report's concurrency
  std::size_t n_pairs = 0;            ///< blocks where both decode windows hold energy
  double delta_pct = 0.0;             ///< mean over blocks of (E_B − E_A) / E_A × 100, decode J/token
  std::optional<double> ci95_low_pct, ci95_high_pct;  ///< Student t over blocks; absent with one pair
  std::optional<double> throughput_ratio_pct;          ///< mean over blocks of (tok/s B / tok/s A − 1) × 100
  std::optional<double> throughput_ci95_low_pct, throughput_ci95_high_pct;
};

/// B against A when both reports come from one run (same run_id) at one batch and differ in precision;
/// nullopt otherwise, or when no block holds a measured decode window on both sides.
std::optional<InRunComparison> compare_in_run(const report::EnergyReport& a, const report::EnergyReport& b);

void to_json(Json& j, const InRunComparison& c);
/// One paragraph for `compare`'s text output.
std::string to_text(const InRunComparison& c);

}  // namespace ecocompute::data
