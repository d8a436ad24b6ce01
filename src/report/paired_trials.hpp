// Trials of two reports of one run paired as measure pairs them: by block (each block runs every
// condition once, so a candidate's trial and the baseline's trial of one block share their moment).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "report/energy_report.hpp"

namespace ecocompute::report {

/// What one valid trial's decode window measured.
struct DecodeFigures {
  std::optional<double> energy_per_token_mj;  ///< absent when no energy source read the window
  std::optional<double> tokens_per_s;
};

/// Each block's valid ("ok") trial with a decode window, by block.
[[nodiscard]] std::map<std::int64_t, DecodeFigures> decode_by_block(const EnergyReport& report);

/// Per-block (B − A) / A × 100 of energy per token and of decode tokens/s, over the blocks where both
/// have the figure.
struct PairedBlockDeltas {
  std::vector<double> energy_pct;
  std::vector<double> throughput_pct;
};
[[nodiscard]] PairedBlockDeltas paired_block_deltas(const EnergyReport& a, const EnergyReport& b);

/// Median decode tokens/s over the report's valid trials (robust to one slow or fast window); nullopt
/// without trials.
[[nodiscard]] std::optional<double> median_decode_tokens_per_s(const EnergyReport& report);

}  // namespace ecocompute::report
