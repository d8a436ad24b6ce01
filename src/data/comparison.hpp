// Comparison of two reports or sessions: rows matched by (model size, precision), paired differences
// of ΔE, energy per token and throughput, and a warning when the environments differ. A report whose
// energy was not measured (a CPU run, measurement_source none) still compares on throughput and quality.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "data/data_row.hpp"
#include "data/dataset_store.hpp"
#include "data/in_run_comparison.hpp"
#include "report/energy_report.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::data {

/// The warning printed when two sides were measured on different stacks.
inline constexpr const char* kDifferentStackWarning = "different stack: do not pool";

/// One configuration on one side: what a stored row or a report says. Energy figures are absent when
/// no energy was measured.
struct ComparedRow {
  std::string model;
  double params_b = 0.0;
  std::string precision;
  int batch_size = 1;               ///< parallel sequences, or a Server report's concurrency (as imported)
  int context_tokens = 0;           ///< the prompt beyond the baseline context (0: at most the baseline)
  std::optional<double> delta_pct;  ///< ΔE % recomputed from the energies
  std::optional<double> energy_per_token_mj;
  std::optional<double> throughput_tokens_per_s;
  std::optional<double> delta_perplexity_pct;
  int n_trials = 1;
  std::optional<double> delta_ci95_half_pct;  ///< half-width of the row's own paired 95 % CI of ΔE
};

/// One side: a label, its session(s), its rows, and what it cannot be compared on.
struct ComparisonSide {
  std::string label;
  std::vector<Session> sessions;
  std::vector<ComparedRow> rows;
  std::vector<std::string> notes;
  std::optional<report::EnergyReport> report;  ///< the report a side was read from, if it was one
};

struct PairedRow {
  double params_b = 0;
  std::string precision;
  int batch_size = 1;
  int context_tokens = 0;  ///< as ComparedRow's: rows of different contexts are never paired
  std::string model;
  std::optional<double> delta_a_pct, delta_b_pct;
  std::optional<double> difference_pp;           ///< delta_b − delta_a, percentage points
  /// Each side's own (within-session) 95 % CI half-width of ΔE, and √(a² + b²): a between-session
  /// difference larger than that is more than the two sessions' own noise explains.
  std::optional<double> ci95_half_a_pp, ci95_half_b_pp, within_sessions_pp;
  std::optional<bool> beyond_within_sessions;
  /// The 95 % half-width of the difference between two cards at this place, from the decision model's
  /// between-card spread (filled by the decision layer when it knows the place), and whether the
  /// difference exceeds it: two cards differ by that much as often as not 1 in 20.
  std::optional<double> between_cards_pp;
  std::optional<bool> beyond_between_cards;
  int n_a = 1, n_b = 1;
  std::optional<double> energy_a_mj, energy_b_mj;
  std::optional<double> energy_difference_pct;   ///< (b − a) / a × 100
  std::optional<double> throughput_a, throughput_b;
  std::optional<double> throughput_difference_pct;
  std::optional<double> delta_ppl_a_pct, delta_ppl_b_pct;
};

struct Comparison {
  std::string label_a, label_b;
  std::string gpu_arch_a, engine_a;  ///< the architecture and engine of side A's first session ("" if none)
  std::vector<std::string> fingerprints_a, fingerprints_b;
  bool same_stack = false;
  std::vector<std::string> warnings;
  std::vector<PairedRow> pairs;
  std::vector<std::string> unmatched;     ///< rows present on one side only
  std::optional<double> mean_difference_pp, sd_difference_pp;
  std::optional<double> ci95_low_pp, ci95_high_pp;  ///< paired t interval of ΔE (needs ≥ 2 pairs with ΔE)
  std::optional<InRunComparison> in_run;  ///< two precisions of one run: B paired with A block by block
};

/// Builds a side from an import batch (published CSVs) or from stored rows of one session.
ComparisonSide side_from_batch(const ImportBatch& batch, std::string label);

/// Builds a side from one report. Its energy figures count only when it is a measurement
/// (report::why_not_measured); otherwise the side notes why, and throughput and quality still compare.
ComparisonSide side_from_report(const report::EnergyReport& report, std::string label);

/// Resolves one side of `ecocompute compare`: an existing path is read as an energy.json, or as a
/// published CSV or folder; anything else names a session (id, id prefix or label) in the store. The
/// error says which was tried.
Result<ComparisonSide> load_comparison_side(const std::string& path_or_session, const DatasetStore& store);

/// Pairs rows (replicates averaged first) and computes the differences.
Comparison compare(const ComparisonSide& a, const ComparisonSide& b);

void to_json(Json& j, const PairedRow& row);
void to_json(Json& j, const Comparison& comparison);
/// Returns the table printed by `ecocompute compare`.
std::string to_text(const Comparison& comparison);

}  // namespace ecocompute::data
