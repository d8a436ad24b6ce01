// Between-session spread: how far sessions that measured the same thing disagree, beyond what each
// session's own scatter explains. A random-effects (DerSimonian–Laird) estimate at every size measured
// by two or more sessions, pooled over those sizes; it widens every band drawn from one session's data.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "data/curve_set.hpp"
#include "data/data_row.hpp"

namespace ecocompute::data {

/// One session's value of a quantity at one size, with the variance of that value within the session.
struct SessionValue {
  std::string session_id;
  double value = 0;
  double variance = 0;
};

/// Returns the DerSimonian–Laird between-session variance τ² = max(0, (Q − (k − 1)) / (Σw − Σw²/Σw)),
/// w = 1/variance, Q = Σw(y − ȳ_w)²; nullopt with fewer than two values or a non-positive variance.
std::optional<double> dersimonian_laird_tau2(std::span<const SessionValue> values);

/// The between-session spread of one quantity for one key.
struct SessionSpread {
  CurveKey key;                          ///< precision "FP16" for the spread of ln(FP16 energy)
  double tau = 0;                        ///< √(mean τ² over the shared sizes), in the quantity's unit
  int shared_sizes = 0;                  ///< sizes measured by two or more sessions
  std::vector<std::string> session_ids;  ///< the sessions that contributed
};

/// Computes the between-session spread of ΔE % for every (arch, engine, precision) with two or more
/// sessions sharing a size (measured batch-1 rows). Within a session a point's variance is its own
/// standard error² when it has replicates or a CI, else the residual variance of that session's own
/// curve (from `per_session_curves`), else the largest variance of the other sessions at that size.
std::vector<SessionSpread> delta_spreads(const std::vector<DataRow>& rows, const std::vector<Curve>& per_session_curves);

/// The same for ln(FP16 energy per token) per (arch, engine): τ is a relative spread (0.1 ≈ 10 %).
/// Within a session the variance of ln E is that of its rows' same-run baselines at the size over
/// their number, else the largest of the other sessions'.
std::vector<SessionSpread> fp16_energy_spreads(const std::vector<DataRow>& rows);

/// Returns the spread for a key, or nullptr.
const SessionSpread* find_spread(const std::vector<SessionSpread>& spreads, const CurveKey& key);

}  // namespace ecocompute::data
