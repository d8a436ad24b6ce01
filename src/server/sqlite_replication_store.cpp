// The replication store on SQLite: WAL journal, synchronous FULL (an answered insert survives a crash
// of the process and of the machine), one connection behind a mutex, prepared statements only.
#include <sqlite3.h>

#include <filesystem>
#include <mutex>

#include <fmt/format.h>

#include "server/replication_sql.hpp"
#include "server/replication_store.hpp"

namespace ecocompute::server {
namespace {
using detail::SqlValue;

struct Closer {
  void operator()(sqlite3* db) const noexcept { sqlite3_close_v2(db); }
  void operator()(sqlite3_stmt* s) const noexcept { sqlite3_finalize(s); }
};
using Db = std::unique_ptr<sqlite3, Closer>;
using Statement = std::unique_ptr<sqlite3_stmt, Closer>;

class SqliteReplicationStore final : public ReplicationStore {
 public:
  SqliteReplicationStore(Db db, std::string path) : db_(std::move(db)), path_(std::move(path)) {}

  Result<void> migrate() {
    std::lock_guard lock(mutex_);
    for (const char* pragma : {"PRAGMA journal_mode=WAL", "PRAGMA synchronous=FULL", "PRAGMA foreign_keys=ON"}) {
      if (auto r = exec_all(pragma); !r) return r;
    }
    if (auto r = exec_all(std::string(detail::create_migrations_table)); !r) return r;
    auto version = scalar(detail::select_schema_version, {});
    if (!version) return version.error();
    for (const detail::Migration& migration : detail::migrations()) {
      if (migration.version <= std::get<std::int64_t>(*version)) continue;
      if (auto r = exec_all("BEGIN IMMEDIATE"); !r) return r;
      Result<void> applied = [&]() -> Result<void> {
        for (std::string_view statement : migration.statements) {
          auto r = run(detail::dialect_statement(statement, "INTEGER PRIMARY KEY AUTOINCREMENT"), {}, nullptr);
          if (!r) return r;
        }
        return run(std::string(detail::insert_migration),
                   {static_cast<std::int64_t>(migration.version), utc_now_iso8601()}, nullptr);
      }();
      if (!applied) {
        (void)exec_all("ROLLBACK");
        return applied;
      }
      if (auto r = exec_all("COMMIT"); !r) return r;
    }
    return {};
  }

  Result<InsertOutcome> insert(const NewReplication& replication) override {
    std::lock_guard lock(mutex_);
    if (auto r = exec_all("BEGIN IMMEDIATE"); !r) return r.error();
    std::vector<std::vector<SqlValue>> inserted;
    auto r = run(std::string(detail::insert_replication), detail::insert_parameters(replication, utc_now_iso8601()),
                 &inserted);
    if (!r) {
      (void)exec_all("ROLLBACK");
      return r.error();
    }
    std::vector<std::vector<SqlValue>> rows;
    if (auto s = run(std::string(detail::select_by_sha), {replication.report_sha256}, &rows); !s || rows.size() != 1) {
      (void)exec_all("ROLLBACK");
      return s ? Error{ErrorCode::internal, "stored replication not found after insert"} : s.error();
    }
    if (auto c = exec_all("COMMIT"); !c) return c.error();
    auto stored = detail::replication_from_row(rows.front());
    if (!stored) return stored.error();
    return InsertOutcome{std::move(stored).value(), !inserted.empty()};
  }

  Result<std::vector<Replication>> list(const ReplicationQuery& query) override {
    if (auto v = detail::validate_query(query); !v) return v.error();
    std::lock_guard lock(mutex_);
    std::vector<std::vector<SqlValue>> rows;
    if (auto r = run(std::string(detail::select_page), detail::query_parameters(query, true), &rows); !r) {
      return r.error();
    }
    return detail::replications_from_rows(rows);
  }

  Result<std::optional<Replication>> find(std::int64_t id) override {
    std::lock_guard lock(mutex_);
    std::vector<std::vector<SqlValue>> rows;
    if (auto r = run(std::string(detail::select_by_id), {id}, &rows); !r) return r.error();
    return detail::first_replication(rows);
  }

  Result<std::int64_t> count(const ReplicationQuery& query) override {
    std::lock_guard lock(mutex_);
    auto value = scalar(detail::count_rows, detail::query_parameters(query, false));
    if (!value) return value.error();
    return std::get<std::int64_t>(*value);
  }

  Result<int> schema_version() override {
    std::lock_guard lock(mutex_);
    auto value = scalar(detail::select_schema_version, {});
    if (!value) return value.error();
    return static_cast<int>(std::get<std::int64_t>(*value));
  }

  std::string describe() const override { return "sqlite:" + path_; }

 private:
  Error sqlite_error(std::string_view what) const {
    return Error{ErrorCode::io, fmt::format("replications database {}: {} failed: {}", path_, what,
                                            sqlite3_errmsg(db_.get()))};
  }

  // Runs a statement without parameters or results (PRAGMA, BEGIN, COMMIT, DDL).
  Result<void> exec_all(const std::string& sql) { return run(sql, {}, nullptr); }

  Result<SqlValue> scalar(std::string_view sql, const std::vector<SqlValue>& params) {
    std::vector<std::vector<SqlValue>> rows;
    if (auto r = run(std::string(sql), params, &rows); !r) return r.error();
    if (rows.empty() || rows.front().empty()) return SqlValue{std::int64_t{0}};
    return rows.front().front();
  }

  // Prepares `sql`, binds `params`, steps to the end and collects rows into `rows` if given.
  Result<void> run(const std::string& sql, const std::vector<SqlValue>& params,
                   std::vector<std::vector<SqlValue>>* rows) {
    sqlite3_stmt* raw = nullptr;
    if (sqlite3_prepare_v2(db_.get(), sql.c_str(), static_cast<int>(sql.size()), &raw, nullptr) != SQLITE_OK) {
      return sqlite_error("prepare");
    }
    Statement statement(raw);
    for (std::size_t i = 0; i < params.size(); ++i) {
      const int index = static_cast<int>(i) + 1;
      int rc = SQLITE_OK;
      if (const auto* s = std::get_if<std::string>(&params[i])) {
        rc = sqlite3_bind_text(raw, index, s->data(), static_cast<int>(s->size()), SQLITE_TRANSIENT);
      } else if (const auto* d = std::get_if<double>(&params[i])) {
        rc = sqlite3_bind_double(raw, index, *d);
      } else if (const auto* n = std::get_if<std::int64_t>(&params[i])) {
        rc = sqlite3_bind_int64(raw, index, *n);
      } else {
        rc = sqlite3_bind_null(raw, index);
      }
      if (rc != SQLITE_OK) return sqlite_error("bind");
    }
    while (true) {
      const int rc = sqlite3_step(raw);
      if (rc == SQLITE_DONE) return {};
      if (rc != SQLITE_ROW) return sqlite_error("step");
      if (rows == nullptr) continue;
      std::vector<SqlValue>& row = rows->emplace_back();
      for (int c = 0; c < sqlite3_column_count(raw); ++c) {
        switch (sqlite3_column_type(raw, c)) {
          case SQLITE_INTEGER: row.emplace_back(static_cast<std::int64_t>(sqlite3_column_int64(raw, c))); break;
          case SQLITE_FLOAT: row.emplace_back(sqlite3_column_double(raw, c)); break;
          case SQLITE_NULL: row.emplace_back(); break;
          default: {
            const auto* bytes = reinterpret_cast<const char*>(sqlite3_column_text(raw, c));
            row.emplace_back(std::string(bytes, static_cast<std::size_t>(sqlite3_column_bytes(raw, c))));
          }
        }
      }
    }
  }

  std::mutex mutex_;
  Db db_;
  std::string path_;
};

}  // namespace

Result<std::unique_ptr<ReplicationStore>> open_sqlite_replication_store(const std::string& path) {
  std::error_code ec;
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                                 nullptr);
  Db db(raw);
  if (rc != SQLITE_OK) {
    return unexpected(ErrorCode::io, fmt::format("cannot open replications database {}: {}", path,
                                                 raw ? sqlite3_errmsg(raw) : "out of memory"));
  }
  sqlite3_busy_timeout(raw, 5000);
  auto store = std::make_unique<SqliteReplicationStore>(std::move(db), path);
  if (auto migrated = store->migrate(); !migrated) return migrated.error();
  return std::unique_ptr<ReplicationStore>(std::move(store));
}

}  // namespace ecocompute::server
