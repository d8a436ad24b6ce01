// Session and DataRow: the stored unit of evidence (one measured configuration) and the software
// stack it was measured on. Sessions are keyed by their environment fingerprint.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "data/basis.hpp"
#include "util/precision.hpp"
#include "util/json.hpp"

namespace ecocompute::data {

/// Rows whose energy per token and power / throughput disagree by more than this are flagged.
inline constexpr double kConsistencyTolerancePct = 2.0;

/// One measurement session: one environment (GPU, driver, runtime, engine + version, libraries).
/// Rows of different sessions are never pooled in a fit unless the caller asks.
struct Session {
  std::string id;              ///< first 16 hex digits of the fingerprint; the key in the store
  std::string fingerprint;     ///< hex environment fingerprint (ours) or sha256 of the published stack
  std::string label;           ///< human name, e.g. "rtx4090_2026-07-24"
  std::string gpu;             ///< "RTX 4090"
  std::string gpu_arch;        ///< "ada", "hopper", … (lower case)
  std::string engine;          ///< "transformers+bitsandbytes", "llama.cpp", …
  std::string engine_version;  ///< version or commit, "" if unknown
  std::string software;        ///< the rest of the stack, "torch 2.4.1+cu121; transformers 4.46.3; …"
  std::string date;            ///< "YYYY-MM-DD" of the session, "" if unknown
  std::string provenance;      ///< DOI, URL or report path the session came from
};

/// The session with this id among `sessions`, or null.
[[nodiscard]] const Session* find_session(const std::vector<Session>& sessions, std::string_view id);

/// One measured configuration (a model at one precision in one session) with its own FP16 baseline.
/// ΔE % is always recomputed from the two energies; a stored percentage is kept only for audit.
struct DataRow {
  std::string session_id;
  std::string row_key;  ///< unique within the session (replicate id, model + precision …)
  std::string gpu;
  std::string gpu_arch;
  std::string engine;
  std::string model;
  double params_b = 0.0;
  std::string precision;  ///< as measured: "NF4", "INT8", "Q4_K_M", …
  Basis basis = Basis::measured;
  std::string weights;    ///< "synthetic", "trained-fixture", "real", or "" if unknown
  double energy_per_token_mj = 0.0;
  double fp16_energy_per_token_mj = 0.0;
  /// Sequences decoded together. Every published row is batch 1; a row at another batch size is
  /// evidence for that batch size only (curves are fitted to batch-1 rows).
  int batch_size = 1;
  /// The prompt the decode ran after, in tokens, when it is longer than the baseline context
  /// (defaults::baseline_context); 0 for every row at or below it (the published convention). A
  /// long-context row is evidence for that context only: the fit and the curves leave it out.
  int context_tokens = 0;
  int n_trials = 1;
  std::optional<double> delta_sd_pct;          ///< SD of ΔE over the row's own trials (ddof 1)
  std::optional<double> delta_ci95_low_pct;    ///< the row's own paired 95 % CI of ΔE
  std::optional<double> delta_ci95_high_pct;
  std::optional<double> stored_delta_pct;      ///< the source's own percentage column (audit only)
  std::optional<double> avg_power_w;
  std::optional<double> throughput_tokens_per_s;
  std::optional<double> perplexity;
  std::optional<double> fp16_perplexity;
  std::optional<double> kld;
  std::string note;

  /// Returns ΔE % = (E − E_fp16) / E_fp16 × 100 from the energies (positive = costs energy).
  [[nodiscard]] double delta_pct() const;
  /// Returns |E − P/T| / E × 100 (energy per token vs power / throughput), if both are known.
  [[nodiscard]] std::optional<double> consistency_gap_pct() const;
  /// Returns true when consistency_gap_pct() exceeds kConsistencyTolerancePct.
  [[nodiscard]] bool is_inconsistent() const;
  /// Returns the perplexity change vs FP16 in %, if both perplexities are known.
  [[nodiscard]] std::optional<double> delta_perplexity_pct() const;
};

/// Everything read from one import source, before it is written (all or nothing) to a store.
struct ImportBatch {
  std::string source;              ///< path of the file or folder
  std::vector<Session> sessions;
  std::vector<DataRow> rows;
  std::vector<std::string> notes;  ///< what was skipped or flagged, and why
};

/// Converts to JSON with the field names above (plus derived delta_pct, consistency_gap_pct,
/// inconsistent, delta_perplexity_pct).
void to_json(Json& j, const Session& session);
void to_json(Json& j, const DataRow& row);

}  // namespace ecocompute::data
