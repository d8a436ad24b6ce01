// Comparison of two reports or sessions: rows matched by (model size, precision), paired differences
// of ΔE and of energy per token, and a warning when the environments differ.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "data/data_row.hpp"
#include "data/dataset_store.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::data {

/// The warning printed when two sides were measured on different stacks.
inline constexpr const char* kDifferentStackWarning = "different stack: do not pool";

/// One side: a label, its session(s) and its rows.
struct ComparisonSide {
  std::string label;
  std::vector<Session> sessions;
  std::vector<DataRow> rows;
};

struct PairedRow {
  double params_b = 0;
  std::string precision;
  std::string model;
  double delta_a_pct = 0, delta_b_pct = 0;
  double difference_pp = 0;               ///< delta_b − delta_a, percentage points
  int n_a = 1, n_b = 1;
  double energy_a_mj = 0, energy_b_mj = 0;
  double energy_difference_pct = 0;       ///< (b − a) / a × 100
};

struct Comparison {
  std::string label_a, label_b;
  std::vector<std::string> fingerprints_a, fingerprints_b;
  bool same_stack = false;
  std::vector<std::string> warnings;
  std::vector<PairedRow> pairs;
  std::vector<std::string> unmatched;     ///< rows present on one side only
  std::optional<double> mean_difference_pp, sd_difference_pp;
  std::optional<double> ci95_low_pp, ci95_high_pp;  ///< paired t interval (needs ≥ 2 pairs)
};

/// Builds a side from an import batch (e.g. one energy.json) or from stored rows of one session.
ComparisonSide side_from_batch(const ImportBatch& batch, std::string label);

/// Resolves one side of `ecocompute compare`: an existing path is read as an import source (an
/// energy.json, a published CSV or folder); anything else names a session (id, id prefix or label)
/// in the store. The error says which was tried.
Result<ComparisonSide> load_comparison_side(const std::string& path_or_session, const DatasetStore& store);

/// Pairs rows (replicates averaged first) and computes the differences.
Comparison compare(const ComparisonSide& a, const ComparisonSide& b);

void to_json(Json& j, const PairedRow& row);
void to_json(Json& j, const Comparison& comparison);

}  // namespace ecocompute::data
