// Evidence: what the decision layer answers from — the measured rows and the curves fitted to them
// (or the published curves) — loaded once and shared by estimate, optimize and check.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "data/curve_set.hpp"
#include "data/data_row.hpp"
#include "data/dataset_store.hpp"
#include "data/session_spread.hpp"
#include "util/result.hpp"

namespace ecocompute::data {

/// Which curves answer questions.
enum class CurveSource {
  store,      ///< curves fitted to the store's measured rows (one session per curve by default)
  published,  ///< the published curve parameters (published_curves.csv), for compatibility
};
std::string_view to_string(CurveSource source) noexcept;
Result<CurveSource> parse_curve_source(std::string_view text);

struct EvidenceOptions {
  CurveSource curve_source = CurveSource::store;
  CurveSetOptions curves;  ///< for CurveSource::store
};

/// Measured rows plus curves. Immutable after loading; safe to share between threads for reading.
struct Evidence {
  std::vector<DataRow> rows;      ///< every measured row (anchors, quality, absolute energies)
  std::vector<Session> sessions;
  CurveSet curves;
  CurveSource curve_source = CurveSource::store;
  /// Between-session spreads (random effects) of ΔE per (arch, engine, precision) and of ln FP16
  /// energy per (arch, engine), from every session of the rows, whichever curves answer.
  std::vector<SessionSpread> delta_spreads;
  std::vector<SessionSpread> fp16_spreads;
};

/// The label of the evidence's session with this id, or the id itself when none has it.
[[nodiscard]] std::string session_label(const Evidence& evidence, const std::string& id);
/// The GPU of the evidence's session with this id, "" when none has it.
[[nodiscard]] std::string session_gpu(const Evidence& evidence, const std::string& id);

/// Computes `delta_spreads` and `fp16_spreads` from the evidence's rows (load_evidence does this; call
/// it on evidence built by hand).
Result<void> attach_session_spreads(Evidence& evidence);

/// Loads evidence from a store; with CurveSource::published the curves come from
/// data_dir()/published/published_curves.csv.
Result<Evidence> load_evidence(const DatasetStore& store, const EvidenceOptions& options = {});

/// Builds options from command-line or request spellings: curves "store" | "published"; an empty
/// session means the default choice. The error names the bad value.
Result<EvidenceOptions> make_evidence_options(std::string_view curves, bool pool_sessions, bool unweighted,
                                              const std::string& session);

/// Loads evidence from the store at `store_path` if it exists, else from the published reference data;
/// sets `*used_published` (when given) accordingly.
Result<Evidence> load_evidence_at(const std::filesystem::path& store_path, const EvidenceOptions& options,
                                  bool* used_published = nullptr);

/// Loads evidence from the published reference data only (an in-memory store).
Result<Evidence> load_published_evidence(const EvidenceOptions& options = {});

}  // namespace ecocompute::data
