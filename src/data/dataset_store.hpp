// DatasetStore: sessions and measured rows in a SQL database (an SQLite file by default; PostgreSQL
// for a shared deployment), imported one source per transaction so that a bad file leaves nothing behind.
//
//   auto store = DatasetStore::open(data_dir() / "ecocompute.sqlite");  // or "postgresql://host/db"
//   auto batch = read_import_source("data/published");          // published CSVs or energy.json
//   auto summary = store->import(*batch);                        // all rows or none
//   auto rows = store->rows({.gpu_arch = "ada", .precision = "NF4"});
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "data/data_row.hpp"
#include "data/published_quality.hpp"
#include "data/sql_database.hpp"
#include "util/result.hpp"

namespace ecocompute::data {

/// What one import wrote.
struct ImportSummary {
  std::string source;
  int sessions_added = 0;
  int rows_added = 0;
  int rows_already_present = 0;  ///< identical (session, row_key) already stored: skipped
  int rows_flagged = 0;          ///< energy/token vs power/throughput off by more than 2 %
  std::vector<std::string> notes;
};
void to_json(Json& j, const ImportSummary& summary);

/// A filter over stored rows; unset fields match everything. Fits use measured_only = true.
struct RowQuery {
  std::optional<std::string> gpu_arch;
  std::optional<std::string> engine;
  std::optional<std::string> precision;
  std::optional<std::string> session_id;
  bool measured_only = true;
  /// When set, only the rows that carry a perplexity pair or whose note contains this text: what an
  /// answer lists beside the model's figure, a few rows of a key that thousands of cards measured.
  std::optional<std::string> quality_or_note;
};

/// The dataset: a repository over SqlDatabase. Every SQL statement lives in dataset_store.cpp.
class DatasetStore {
 public:
  /// Wraps an open connection and creates the schema if missing.
  static Result<DatasetStore> create(std::unique_ptr<SqlDatabase> db);
  /// Opens the store `location` names: a postgresql:// or postgres:// URL, else an SQLite file path
  /// (created if needed). Creates the schema if missing.
  static Result<DatasetStore> open(const std::string& location);
  /// Opens an empty in-memory SQLite store.
  static Result<DatasetStore> open_in_memory();
  /// Opens an in-memory store holding a copy of the SQLite store file at `path` (which is only read); a
  /// file that is not a whole SQLite database is an error naming it.
  static Result<DatasetStore> open_in_memory_copy_of(const std::filesystem::path& path);

  /// Writes a compact copy of this SQLite store to the file `path`, replaced whole (written beside it,
  /// then renamed), so a reader never sees half of it. A PostgreSQL store has no such copy: an error.
  Result<void> write_copy(const std::filesystem::path& path) const;

  /// Validates and writes a batch in one transaction: on any error nothing is written and the
  /// error names the source and the offending row.
  Result<ImportSummary> import(const ImportBatch& batch);

  /// Returns every session, ordered by date then label.
  [[nodiscard]] Result<std::vector<Session>> sessions() const;
  /// Returns the session with exactly this id, nothing when there is none (one indexed read: an answer
  /// naming a few sessions of a large store reads those, not all).
  [[nodiscard]] Result<std::optional<Session>> session_by_id(const std::string& id) const;
  /// Returns the session with this id (or a unique id prefix or label); not_found otherwise.
  [[nodiscard]] Result<Session> find_session(const std::string& id_or_label) const;
  /// Returns rows matching the query, ordered by session, params_b, precision, row_key.
  [[nodiscard]] Result<std::vector<DataRow>> rows(const RowQuery& query = {}) const;
  /// Returns the number of stored rows of each session, counted by the database.
  [[nodiscard]] Result<std::map<std::string, int>> row_counts() const;

  /// A text that changes whenever the stored evidence does (rows and sessions are only ever added, so
  /// their counts say so): what a document derived from the evidence is stored under.
  [[nodiscard]] Result<std::string> evidence_version() const;
  /// A document derived from the evidence (the fitted decision model), stored under `key` for
  /// `version`; nullopt when none is stored for that version.
  [[nodiscard]] Result<std::optional<std::string>> derived(const std::string& key, const std::string& version) const;
  /// Stores (or replaces) a derived document.
  Result<void> put_derived(const std::string& key, const std::string& version, const std::string& content);

  /// Writes published quality rows in one transaction: on any error nothing is written. A row already
  /// stored (same file, commit, table, model, type and importance matrix) is skipped, so importing the
  /// same source again adds nothing.
  Result<ImportSummary> import_quality(const QualityBatch& batch);
  /// Returns the published quality rows, all or those of one precision (case-insensitive), in the order
  /// of their source files and lines.
  [[nodiscard]] Result<std::vector<PublishedQualityRow>> quality_rows(
      const std::optional<std::string>& precision = std::nullopt) const;

 private:
  explicit DatasetStore(std::unique_ptr<SqlDatabase> db) : db_(std::move(db)) {}
  std::unique_ptr<SqlDatabase> db_;
};

/// Returns the default store path: $ECOCOMPUTE_STORE if set, else data_dir()/ecocompute.sqlite.
std::filesystem::path default_store_path();

/// Returns an in-memory store holding the published reference data shipped in data_dir()/published, our
/// own sessions listed in data_dir()/sessions/shipped.txt and, where the llama.cpp source is fetched
/// (default_llama_cpp_source()), the quality tables of its perplexity README.
Result<DatasetStore> open_published_store();

/// Opens the store at `path` if that file exists, or the PostgreSQL store `path` names as a URL;
/// otherwise returns open_published_store() and sets `*used_published` (when given) so the caller can say so.
Result<DatasetStore> open_store_or_published(const std::filesystem::path& path, bool* used_published = nullptr);

}  // namespace ecocompute::data
