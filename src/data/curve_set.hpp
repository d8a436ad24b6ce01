// CurveSet: the fitted curves per (GPU architecture, engine, precision), built from stored rows (one
// session per curve unless pooling is asked for) or read from the published curve parameters.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "data/curve_fit.hpp"
#include "data/data_row.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::data {

/// What a curve is for. Precision is the measured spelling ("NF4", "INT8", "Q4_K_M").
struct CurveKey {
  std::string gpu_arch;
  std::string engine;
  std::string precision;
  friend auto operator<=>(const CurveKey&, const CurveKey&) = default;
};

/// One curve and where it came from.
struct Curve {
  CurveKey key;
  std::string source;                    ///< "fit" (from our store) or "published" (curves.csv)
  std::vector<std::string> session_ids;  ///< sessions whose rows were fitted (one unless pooled)
  std::string session_label;             ///< label of that session, or "pooled: a + b"
  CurveFit fit;
};

/// A set of curves; at most one per key.
struct CurveSet {
  std::vector<Curve> curves;

  /// Returns the curve for the key, or nullptr.
  [[nodiscard]] const Curve* find(const CurveKey& key) const;
  /// Returns every curve for an engine and precision (all architectures).
  [[nodiscard]] std::vector<const Curve*> for_precision(const std::string& engine,
                                                        const std::string& precision) const;
};

/// Groups rows into fit points: rows of one (session, params_b, precision) are one point whose ΔE is
/// the mean of their recomputed ΔE, n the number of replicates (or the row's n_trials when alone),
/// and se the replicates' SD/√n (or the row's own CI/SD when it has one).
std::vector<FitPoint> summarize_points(const std::vector<DataRow>& rows);

/// How curves are built from rows.
struct CurveSetOptions {
  FitWeighting weighting = FitWeighting::weighted;
  /// Pool every session of a key into one fit (never done unless asked).
  bool pool_sessions = false;
  /// Without pooling, the session that gives the curve for a key: the one with the most distinct
  /// sizes, newest first on a tie, unless a campaign (sessions of one GPU model and one engine build,
  /// e.g. one size per card) covers more sizes: then the campaign's sessions are fitted together.
  /// Set to pick a session by id or label instead.
  std::optional<std::string> session;
};

/// Fits one curve per (arch, engine, precision) from measured rows (non-measured rows are ignored;
/// baseline rows have no ΔE and are skipped; a session with fewer than 2 sizes gives no curve).
/// `sessions` supplies labels and dates for the choice of session.
Result<CurveSet> fit_curve_set(const std::vector<DataRow>& rows, const std::vector<Session>& sessions,
                               const CurveSetOptions& options = {});

/// Fits every (arch, engine, precision, session) separately: the full per-session view.
Result<std::vector<Curve>> fit_per_session(const std::vector<DataRow>& rows, const std::vector<Session>& sessions,
                                          FitWeighting weighting = FitWeighting::weighted);

/// Reads published_curves.csv (A, S, N*, resid_std, range, crossover, loo_mae), engine
/// transformers+bitsandbytes. These curves carry no covariance: their bands are absent.
Result<CurveSet> read_published_curves(const std::filesystem::path& path);

/// Reads site_measured_fit_input.csv as fit points per (arch, precision) and fits them with the
/// published method (unweighted, published bounds, N* fixed below three sizes).
Result<std::vector<Curve>> reproduce_published_curves(const std::filesystem::path& fit_input_csv);

void to_json(Json& j, const CurveKey& key);
void to_json(Json& j, const Curve& curve);

}  // namespace ecocompute::data
