// The replication store over data::SqlDatabase: one implementation for SQLite and PostgreSQL, with
// the statements of replication_sql.hpp. One connection behind a mutex, every write in one
// transaction, the schema migrated when opened.
#include <filesystem>
#include <mutex>

#include "data/sql_database.hpp"
#include "server/replication_sql.hpp"
#include "server/replication_store.hpp"
#include "util/clock.hpp"

namespace ecocompute::server {
namespace {

class SqlReplicationStore final : public ReplicationStore {
 public:
  explicit SqlReplicationStore(std::unique_ptr<data::SqlDatabase> db) : db_(std::move(db)) {}

  // Applies the migrations not yet recorded in schema_migrations, all in one transaction.
  Result<void> migrate() {
    std::lock_guard lock(mutex_);
    if (auto created = db_->execute(detail::create_migrations_table, {}); !created) return created.error();
    const std::string_view id_column = data::auto_increment_id_column(db_->dialect());
    return data::in_transaction(*db_, [&]() -> Result<void> {
      // Two servers starting at once: the second waits here, then reads the first one's versions.
      if (auto locked = db_->lock_table("schema_migrations"); !locked) return locked;
      auto version = read_schema_version();
      if (!version) return version.error();
      for (const detail::Migration& migration : detail::migrations()) {
        if (migration.version <= *version) continue;
        for (std::string_view statement : migration.statements) {
          auto applied = db_->execute(detail::dialect_statement(statement, id_column), {});
          if (!applied) return applied.error();
        }
        auto recorded = db_->execute(detail::insert_migration,
                                     {static_cast<std::int64_t>(migration.version), utc_now()});
        if (!recorded) return recorded.error();
      }
      return {};
    });
  }

  Result<InsertOutcome> insert(const NewReplication& replication) override {
    std::lock_guard lock(mutex_);
    return data::in_transaction(*db_, [&]() -> Result<InsertOutcome> {
      // RETURNING yields the new id, or no row when a report with this sha256 is already stored.
      auto inserted =
          db_->query(detail::insert_replication, detail::insert_parameters(replication, utc_now()));
      if (!inserted) return inserted.error();
      auto rows = db_->query(detail::select_by_sha, {replication.report_sha256});
      if (!rows) return rows.error();
      if (rows->size() != 1) return Error{ErrorCode::internal, "stored replication not found after insert"};
      auto stored = detail::replication_from_row(rows->front());
      if (!stored) return stored.error();
      return InsertOutcome{std::move(stored).value(), !inserted->empty()};
    });
  }

  Result<std::vector<Replication>> list(const ReplicationQuery& query) override {
    if (auto valid = detail::validate_query(query); !valid) return valid.error();
    std::lock_guard lock(mutex_);
    auto rows = db_->query(detail::select_page, detail::query_parameters(query, true));
    if (!rows) return rows.error();
    return detail::replications_from_rows(*rows);
  }

  Result<std::optional<Replication>> find(std::int64_t id) override {
    std::lock_guard lock(mutex_);
    auto rows = db_->query(detail::select_by_id, {id});
    if (!rows) return rows.error();
    return detail::first_replication(*rows);
  }

  Result<std::int64_t> count(const ReplicationQuery& query) override {
    std::lock_guard lock(mutex_);
    auto rows = db_->query(detail::count_rows, detail::query_parameters(query, false));
    if (!rows) return rows.error();
    return single_integer(*rows, "COUNT(*)");
  }

  Result<int> schema_version() override {
    std::lock_guard lock(mutex_);
    auto version = read_schema_version();
    if (!version) return version.error();
    return static_cast<int>(*version);
  }

  [[nodiscard]] std::string describe() const override { return db_->describe(); }

 private:
  Result<std::int64_t> read_schema_version() {
    auto rows = db_->query(detail::select_schema_version, {});
    if (!rows) return rows.error();
    return single_integer(*rows, "the schema version");
  }

  Result<std::int64_t> single_integer(const std::vector<data::SqlRow>& rows, std::string_view what) const {
    if (rows.size() == 1 && rows.front().size() == 1) {
      if (auto n = data::sql_integer(rows.front().front())) return *n;
    }
    return unexpected(ErrorCode::internal, std::string(what) + " on " + db_->describe() + " is not one integer");
  }

  std::mutex mutex_;
  std::unique_ptr<data::SqlDatabase> db_;
};

Result<std::unique_ptr<ReplicationStore>> open_store(Result<std::unique_ptr<data::SqlDatabase>> db) {
  if (!db) return db.error();
  auto store = std::make_unique<SqlReplicationStore>(std::move(db).value());
  if (auto migrated = store->migrate(); !migrated) return migrated.error();
  return std::unique_ptr<ReplicationStore>(std::move(store));
}

}  // namespace

Result<std::unique_ptr<ReplicationStore>> open_sqlite_replication_store(const std::string& path) {
  // An answered insert must survive a crash of the process and of the machine.
  constexpr data::SqliteOptions durable{.wal_journal = true, .synchronous_full = true};
  return open_store(data::open_sqlite(path, durable));
}

Result<std::unique_ptr<ReplicationStore>> open_postgres_replication_store(const std::string& url) {
  return open_store(data::open_postgres(url));
}

Result<std::unique_ptr<ReplicationStore>> open_replication_store(const std::string& location) {
  if (location.empty()) {
    return unexpected(ErrorCode::invalid_argument, "the replications database location is empty");
  }
  if (data::is_postgres_url(location)) return open_postgres_replication_store(location);
  // The default file lives in the user's data folder, which a fresh account does not have yet.
  const std::filesystem::path parent = std::filesystem::path(location).parent_path();
  std::error_code ec;
  if (!parent.empty() && !std::filesystem::exists(parent, ec)) {
    std::filesystem::create_directories(parent, ec);
    if (ec) {
      return unexpected(ErrorCode::io, "replications database " + location + ": cannot create its folder: " + ec.message());
    }
  }
  return open_sqlite_replication_store(location);
}

std::string redact_url(const std::string& url) { return data::redact_url(url); }

}  // namespace ecocompute::server
