// SqlDatabase: the one seam between the stores (dataset, replications) and a SQL engine. SQLite for a
// single machine (sqlite_database.cpp), PostgreSQL through libpq for a shared deployment
// (postgres_database.cpp); both run the same statement text, with `$1, $2, …` placeholders and
// bound parameters only.
//
//   auto db = open_database("postgresql://user@host/ecocompute");   // or "store.sqlite"
//   auto rows = (*db)->query("SELECT id FROM t WHERE name = $1", {std::string("x")});
//   auto id = sql_integer((*rows)[0][0]);                            // int64 on SQLite, text on PostgreSQL
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "util/result.hpp"

namespace ecocompute::data {

/// A bound parameter or a result column: NULL, integer, real or text. PostgreSQL returns every
/// non-NULL column as text; read columns with sql_text / sql_real / sql_integer, which accept both.
using SqlValue = std::variant<std::monostate, std::int64_t, double, std::string>;
using SqlRow = std::vector<SqlValue>;

/// The SQL engine behind a connection, for the few statements the two dialects spell differently.
enum class SqlDialect { sqlite, postgresql };

/// How an SQLite file is opened. The defaults suit a local cache; a store whose answered writes must
/// survive a crash sets wal_journal and synchronous_full.
struct SqliteOptions {
  bool wal_journal = false;       ///< PRAGMA journal_mode=WAL: readers do not block the writer
  bool synchronous_full = false;  ///< PRAGMA synchronous=FULL: a commit survives a power cut, not only a crash
  int busy_timeout_ms = 5000;     ///< how long a statement waits for another connection's write lock
  bool foreign_keys = true;       ///< PRAGMA foreign_keys=ON
};

/// A connection that runs parameterized statements. Parameters are written `$1`, `$2`, …; a statement
/// may use them in any order and more than once, and must use every parameter it is given. Errors
/// name the statement and the database (never its password). Not thread-safe: a caller that shares
/// a connection between threads holds a mutex around it.
class SqlDatabase {
 public:
  virtual ~SqlDatabase() = default;

  /// Runs a statement with bound parameters and returns every result row.
  virtual Result<std::vector<SqlRow>> query(std::string_view sql, const std::vector<SqlValue>& params) = 0;
  /// Runs a statement with bound parameters and returns the number of rows it changed.
  virtual Result<std::int64_t> execute(std::string_view sql, const std::vector<SqlValue>& params) = 0;

  /// Starts a transaction that will write: on SQLite it takes the database's write lock at once
  /// (BEGIN IMMEDIATE), so two writers serialize here instead of failing at their first write.
  virtual Result<void> begin() = 0;
  /// Commits the transaction; an error means nothing of it was written (call rollback() anyway).
  /// Once a statement inside the transaction has failed, its later statements and the commit fail
  /// too, on both engines: a transaction is written whole or not at all.
  virtual Result<void> commit() = 0;
  virtual void rollback() noexcept = 0;

  /// Inside a transaction, makes every other connection that locks `table` wait until this
  /// transaction ends (LOCK TABLE … IN EXCLUSIVE MODE on PostgreSQL). Nothing on SQLite, where
  /// begin() already serializes writers. `table` is an identifier ([A-Za-z_][A-Za-z0-9_]*).
  virtual Result<void> lock_table(std::string_view table) = 0;

  [[nodiscard]] virtual SqlDialect dialect() const = 0;
  /// Returns where the database lives, without any password: "sqlite:/path" or a redacted URL.
  [[nodiscard]] virtual std::string describe() const = 0;
};

/// Runs `work` (returning Result<T>) between db.begin() and db.commit(); when `work` or the commit
/// fails, rolls back and returns that error, so a transaction is all or nothing.
template <typename Work>
auto in_transaction(SqlDatabase& db, Work&& work) -> decltype(work()) {
  if (auto begun = db.begin(); !begun) return begun.error();
  auto result = work();
  if (!result) {
    db.rollback();
    return result;
  }
  if (auto committed = db.commit(); !committed) {
    db.rollback();
    return committed.error();
  }
  return result;
}

/// Opens (creating it and its folder if needed) an SQLite database file; ":memory:" opens a private
/// in-memory one. The error names the path.
Result<std::unique_ptr<SqlDatabase>> open_sqlite(const std::filesystem::path& path, const SqliteOptions& options = {});

/// Opens a private in-memory SQLite database holding a copy of the SQLite file at `path`, which is only
/// read. The copy is checked (PRAGMA quick_check): a file that is not a whole SQLite database is an error
/// naming it.
Result<std::unique_ptr<SqlDatabase>> open_sqlite_copy_in_memory(const std::filesystem::path& path);

/// Connects to PostgreSQL with a libpq URL (postgresql://user:password@host:port/db?…). The error
/// (ErrorCode::unavailable) names the server with its password redacted.
Result<std::unique_ptr<SqlDatabase>> open_postgres(const std::string& url);

/// Opens what `location` names: PostgreSQL for a postgresql:// or postgres:// URL, else the SQLite
/// file at that path (with `sqlite_options`).
Result<std::unique_ptr<SqlDatabase>> open_database(const std::string& location,
                                                   const SqliteOptions& sqlite_options = {});

/// Returns whether `location` is a PostgreSQL URL (postgresql:// or postgres://).
bool is_postgres_url(std::string_view location);

/// Returns the column type of an auto-increment integer primary key in `dialect`.
std::string_view auto_increment_id_column(SqlDialect dialect);

/// Returns `url` with any password replaced by "***", for errors, logs and describe().
std::string redact_url(const std::string& url);

/// Reads a column as text / real / integer; NULL becomes std::nullopt, as does text that is not a
/// number for sql_real / sql_integer (callers that must tell the two apart test for monostate).
/// Numbers arrive as int64/double from SQLite and as text from PostgreSQL: both are read alike.
std::optional<std::string> sql_text(const SqlValue& value);
std::optional<double> sql_real(const SqlValue& value);
std::optional<std::int64_t> sql_integer(const SqlValue& value);

/// The other way: a parameter from an optional figure or text, NULL when it is absent.
SqlValue optional_value(const std::optional<double>& v);
SqlValue optional_value(const std::optional<std::string>& v);

namespace detail {

/// Returns the start of `sql` for an error message (at most 60 characters, then "…").
std::string statement_excerpt(std::string_view sql);

/// Checks that the `$n` numbers a statement uses (`used`, any order, repeats allowed) are exactly
/// 1..given; the error (ErrorCode::internal: a bug in the caller) names the statement and `database`.
Result<void> check_parameters(std::string_view sql, const std::vector<int>& used, std::size_t given,
                              const std::string& database);

/// The transaction state both implementations keep. Once a statement inside a transaction fails,
/// every later statement and the commit fail too until rollback() (PostgreSQL behaves so on its own;
/// SQLite would carry on), so a caller that misses one error still cannot commit half a transaction.
class TransactionState {
 public:
  void begun() noexcept {
    open_ = true;
    failed_ = false;
  }
  void ended() noexcept {
    open_ = false;
    failed_ = false;
  }
  void fail() noexcept { failed_ = open_; }
  [[nodiscard]] bool open() const noexcept { return open_; }
  [[nodiscard]] bool failed() const noexcept { return failed_; }

  /// Returns the error for a statement run after the transaction failed, else nothing.
  [[nodiscard]] Result<void> check(std::string_view sql, const std::string& database) const;

  /// Passes a statement's result through, marking the transaction failed when it is an error.
  template <typename T>
  Result<T> record(Result<T> result) {
    if (!result) fail();
    return result;
  }

 private:
  bool open_ = false;
  bool failed_ = false;
};

/// Checks that `name` is a plain SQL identifier ([A-Za-z_][A-Za-z0-9_]*), safe to write into a statement.
Result<void> check_identifier(std::string_view name);

}  // namespace detail
}  // namespace ecocompute::data
