// ReplicationStore: the uploaded energy.json reports, each stored with its grade; SQLite by default,
// PostgreSQL for a shared deployment, with one schema and one behaviour (one implementation over
// data::SqlDatabase, in sql_replication_store.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "util/result.hpp"

namespace ecocompute::server {

/// A report to store: its text as uploaded, the columns the gallery filters and shows, and its grade.
struct NewReplication {
  std::string report_json;       ///< the uploaded energy.json, byte for byte
  std::string report_sha256;     ///< hex sha256 of report_json; one row per distinct report
  std::optional<std::string> model_name;
  std::optional<double> params_b;
  std::optional<std::string> gpu;
  std::optional<std::string> gpu_arch;
  std::optional<std::string> precision;
  std::optional<std::string> engine;
  std::optional<std::string> basis;              ///< results.basis: measured / interpolated / …
  std::optional<double> energy_per_token_mj;
  std::optional<double> vs_fp16_energy_pct;
  std::string grade;              ///< inside / outside / not_gradeable (as `ecocompute check`)
  std::string grade_reason;       ///< one sentence: why that grade
  std::string grade_json;         ///< the grade with its numbers (curve, band, residual), as JSON
};

/// A stored report: what was uploaded plus the row's id and the time it was stored.
struct Replication : NewReplication {
  std::int64_t id = 0;
  std::string received_at_utc;   ///< ISO 8601, e.g. 2026-11-29T17:02:03Z
};

/// The result of an insert: the stored row, and whether this call created it (false: the same
/// report, by sha256, was already stored and is returned unchanged).
struct InsertOutcome {
  Replication replication;
  bool created = false;
};

/// A page of the gallery, newest first, optionally filtered.
struct ReplicationQuery {
  std::optional<std::string> gpu_arch;
  std::optional<std::string> precision;
  int limit = 50;    ///< 1..500
  int offset = 0;    ///< ≥ 0
};

/// The store's interface. The store is thread-safe (one connection behind a mutex), runs every
/// write in one transaction, uses prepared statements only, and creates or migrates its schema when
/// opened (table schema_migrations records the versions applied).
class ReplicationStore {
 public:
  virtual ~ReplicationStore() = default;

  /// Stores a report unless one with the same sha256 is stored; durable once it returns.
  [[nodiscard]] virtual Result<InsertOutcome> insert(const NewReplication& replication) = 0;
  /// Returns a page of stored reports, newest first.
  [[nodiscard]] virtual Result<std::vector<Replication>> list(const ReplicationQuery& query) = 0;
  /// Returns the report with `id`, or nullopt.
  [[nodiscard]] virtual Result<std::optional<Replication>> find(std::int64_t id) = 0;
  /// Returns how many reports are stored (matching the query's filters; limit/offset ignored).
  [[nodiscard]] virtual Result<std::int64_t> count(const ReplicationQuery& query) = 0;
  /// Returns the highest schema version applied.
  [[nodiscard]] virtual Result<int> schema_version() = 0;
  /// Returns where the store lives, without any password ("sqlite:/path", "postgresql://host:port/db").
  [[nodiscard]] virtual std::string describe() const = 0;
};

/// Opens (creating if needed) a SQLite store at `path` in WAL mode; the error names the path.
Result<std::unique_ptr<ReplicationStore>> open_sqlite_replication_store(const std::string& path);

/// Opens a PostgreSQL store from a libpq connection URL (postgresql://…); the error names the server.
Result<std::unique_ptr<ReplicationStore>> open_postgres_replication_store(const std::string& url);

/// Opens the store a `--db` value names: a postgresql:// or postgres:// URL, else a SQLite file path.
Result<std::unique_ptr<ReplicationStore>> open_replication_store(const std::string& location);


/// Returns `url` with any password replaced by "***", for logs and describe() (as data::redact_url).
std::string redact_url(const std::string& url);

}  // namespace ecocompute::server
