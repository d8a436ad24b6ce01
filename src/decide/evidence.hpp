// Evidence: what every answer comes from — the measured rows and their sessions, and the decision
// model fitted to them once per change of the rows (kept in the store, or for the shipped data in a
// cache file, so that a question does not refit it). Immutable once loaded; shared by threads.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "data/data_row.hpp"
#include "data/dataset_store.hpp"
#include "data/quality_cost.hpp"
#include "decide/decision_model.hpp"
#include "decide/interval_calibration.hpp"
#include "util/result.hpp"

namespace ecocompute::decide {

/// The rows of one engine and format an answer shows beside the model's figures: those with a measured
/// quality cost and those whose baseline ran throttled (named in a note).
struct KeyRows {
  std::vector<data::DataRow> with_quality;
  std::vector<data::DataRow> throttled;
};

/// The `curve_source` every answer names (the published API's field, values "store" | "published"):
/// "store", the curves and figures come from a fit to the evidence (a store, or the shipped sessions
/// and published rows), as main's default was; "published", the published service's own curve
/// parameters, is never what the decision model answers with.
inline constexpr const char* kCurveSource = "store";

struct Evidence {
  std::vector<data::DataRow> rows;  ///< measured rows (every one, unless read by key)
  std::vector<data::Session> sessions;
  std::shared_ptr<const DecisionModel> model;
  /// The calibration of the model's intervals computed on this evidence (calibrate --write), if any.
  std::shared_ptr<const IntervalCalibration> calibration;
  /// Answers lacking their size judge the class the same question has at the nearest measured size even
  /// without a calibration (a second judgement of the place): `calibrate`'s folds read their factors from
  /// it out of fold. Other evidence without a calibration has no use for it.
  bool judge_nearest_size_class = false;
  /// When set, the rows of one engine and format that an answer shows (a perplexity pair or a throttling
  /// note) come from the store (indexed) instead of `rows`: a question reads those, not the whole store.
  std::function<std::vector<data::DataRow>(const std::string& engine, const std::string& precision)> rows_by_key;

  /// Those rows of every engine and format, indexed once (index()) so a question does not scan the store.
  std::map<std::string, KeyRows> key_rows_index;

  /// The rows an answer shows for an engine and format: from the index, else read by key once (kept
  /// for the next question of the same evidence, e.g. every configuration of an optimize grid).
  [[nodiscard]] const KeyRows& key_rows(const std::string& engine, const std::string& precision) const;
  struct KeyRowsRead {
    std::mutex mutex;
    std::map<std::string, KeyRows> rows;
  };
  std::shared_ptr<KeyRowsRead> key_rows_read = std::make_shared<KeyRowsRead>();
  /// Builds key_rows_index from `rows`.
  void index();

  /// The published quality rows (llama.cpp's perplexity tables) the store holds.
  std::vector<data::PublishedQualityRow> published_quality;
  /// The quality evidence of an engine and format: the published rows with that key's measured rows
  /// (real weights, the fixture), made once per key and kept.
  [[nodiscard]] const data::QualityEvidence& quality_evidence(const std::string& engine, const std::string& precision) const;
  struct QualityRead {
    std::mutex mutex;
    std::map<std::string, std::shared_ptr<const data::QualityEvidence>> by_key;
  };
  std::shared_ptr<QualityRead> quality_read = std::make_shared<QualityRead>();

  /// Sessions by id, indexed once (index_sessions()) so that naming the sessions of many rows does not
  /// scan every session for each.
  std::unordered_map<std::string, std::size_t> session_positions;
  void index_sessions();
  /// When set (a command answering one question from a store), the sessions an answer names are read from
  /// the store by id as it names them, and kept, instead of every session at load (`sessions` is empty then).
  std::function<std::optional<data::Session>(const std::string& id)> session_by_id;
  struct SessionsRead {
    std::mutex mutex;
    std::map<std::string, std::optional<data::Session>> by_id;
  };
  std::shared_ptr<SessionsRead> sessions_read = std::make_shared<SessionsRead>();
  /// The session of an id (nullptr when unknown): from the index, else read by id, else by a scan.
  [[nodiscard]] const data::Session* session(const std::string& id) const;

  /// The label of a session (its id when unknown) and its GPU ("" when unknown).
  [[nodiscard]] std::string session_label(const std::string& id) const;
  [[nodiscard]] std::string session_gpu(const std::string& id) const;
};

/// Evidence from rows and sessions, fitting the model (no cache).
Evidence evidence_from(std::vector<data::DataRow> rows, std::vector<data::Session> sessions);

/// How much of a store a question loads: every row (the server, which lists them), or only its sessions
/// and fit, the rows read by key as an answer needs them (a command answering one question), or only its
/// fit, the rows read by key and the sessions by id as an answer names them (estimate, optimize).
enum class RowLoading { all, by_key, by_key_sessions_by_id };

/// Loads the store's sessions and its stored fit when it describes the store's evidence (its version);
/// otherwise reads every row, fits, and stores the fit (a store that cannot be written is still
/// answered from the fresh fit).
Result<Evidence> load_evidence(std::shared_ptr<data::DatasetStore> store, RowLoading loading = RowLoading::all);

/// The store at `store_path` if it exists, else the shipped published data and sessions (whose fit is
/// kept in util's cache_dir()); sets `*used_published` accordingly.
Result<Evidence> load_evidence_at(const std::filesystem::path& store_path, bool* used_published = nullptr,
                                  RowLoading loading = RowLoading::all);

/// The shipped published data and sessions (data_dir()), fitted or read from util's cache_dir().
Result<Evidence> load_published_evidence();

}  // namespace ecocompute::decide
