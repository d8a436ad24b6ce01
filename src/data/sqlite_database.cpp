// SqlDatabase over SQLite: statements are prepared once and cached by their text; parameters are
// bound by name ("$1", "$2", …), so a statement may use them in any order and more than once.
#include <sqlite3.h>

#include <charconv>
#include <map>

#include <fmt/format.h>

#include "data/sql_database.hpp"

namespace ecocompute::data {
namespace {

// Returns n for a parameter named "$n"; nullopt for any other spelling (?, ?NNN, :name, @name).
std::optional<int> dollar_number(const char* name) {
  if (name == nullptr || name[0] != '$' || name[1] == '\0') return std::nullopt;
  const std::string_view digits(name + 1);
  int n = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (ec != std::errc{} || end != digits.data() + digits.size()) return std::nullopt;
  return n;
}

// Leaves a cached statement ready for its next use (and releases its read lock) however its run ended.
class ResetWhenDone {
 public:
  explicit ResetWhenDone(sqlite3_stmt* statement) : statement_(statement) {}
  ~ResetWhenDone() {
    sqlite3_reset(statement_);
    sqlite3_clear_bindings(statement_);
  }
  ResetWhenDone(const ResetWhenDone&) = delete;
  ResetWhenDone& operator=(const ResetWhenDone&) = delete;

 private:
  sqlite3_stmt* statement_;
};

class SqliteDatabase final : public SqlDatabase {
 public:
  SqliteDatabase(sqlite3* db, std::string path) : db_(db), description_("sqlite:" + std::move(path)) {}
  ~SqliteDatabase() override {
    for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
    sqlite3_close_v2(db_);
  }
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;

  Result<std::vector<SqlRow>> query(std::string_view sql, const std::vector<SqlValue>& params) override {
    if (auto usable = transaction_.check(sql, description_); !usable) return usable.error();
    return transaction_.record(run_query(sql, params));
  }

  Result<std::int64_t> execute(std::string_view sql, const std::vector<SqlValue>& params) override {
    if (auto usable = transaction_.check(sql, description_); !usable) return usable.error();
    return transaction_.record(run_statement(sql, params));
  }

  Result<void> begin() override {
    if (auto begun = simple("BEGIN IMMEDIATE"); !begun) return begun;
    transaction_.begun();
    return {};
  }

  Result<void> commit() override {
    if (transaction_.failed()) {
      rollback();
      return unexpected(ErrorCode::io,
                        "the transaction on " + description_ + " was rolled back: a statement in it failed");
    }
    auto committed = simple("COMMIT");
    // A COMMIT that failed (the database busy, say) leaves the transaction open for rollback().
    if (committed) transaction_.ended();
    return committed;
  }

  void rollback() noexcept override {
    if (sqlite3_get_autocommit(db_) == 0) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
    transaction_.ended();
  }

  Result<void> lock_table(std::string_view table) override { return detail::check_identifier(table); }

  [[nodiscard]] SqlDialect dialect() const override { return SqlDialect::sqlite; }
  [[nodiscard]] std::string describe() const override { return description_; }

 private:
  Result<std::vector<SqlRow>> run_query(std::string_view sql, const std::vector<SqlValue>& params) {
    auto stmt = prepare(sql, params);
    if (!stmt) return stmt.error();
    const ResetWhenDone reset(*stmt);
    std::vector<SqlRow> rows;
    while (true) {
      const int rc = sqlite3_step(*stmt);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) return failure("cannot run", sql);
      rows.push_back(read_row(*stmt));
    }
    return rows;
  }

  Result<std::int64_t> run_statement(std::string_view sql, const std::vector<SqlValue>& params) {
    auto stmt = prepare(sql, params);
    if (!stmt) return stmt.error();
    const ResetWhenDone reset(*stmt);
    int rc = sqlite3_step(*stmt);
    while (rc == SQLITE_ROW) rc = sqlite3_step(*stmt);
    if (rc != SQLITE_DONE) return failure("cannot run", sql);
    return static_cast<std::int64_t>(sqlite3_changes(db_));
  }

  Error failure(std::string_view what, std::string_view sql) const {
    return Error{ErrorCode::io, fmt::format("{} '{}' on {}: {}", what, detail::statement_excerpt(sql), description_,
                                            sqlite3_errmsg(db_))};
  }

  Result<void> simple(const char* sql) {
    if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK) return failure("cannot run", sql);
    return {};
  }

  static SqlRow read_row(sqlite3_stmt* stmt) {
    SqlRow row;
    const int columns = sqlite3_column_count(stmt);
    for (int c = 0; c < columns; ++c) {
      switch (sqlite3_column_type(stmt, c)) {
        case SQLITE_INTEGER: row.emplace_back(static_cast<std::int64_t>(sqlite3_column_int64(stmt, c))); break;
        case SQLITE_FLOAT: row.emplace_back(sqlite3_column_double(stmt, c)); break;
        case SQLITE_NULL: row.emplace_back(std::monostate{}); break;
        default: {
          const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
          const auto size = static_cast<std::size_t>(sqlite3_column_bytes(stmt, c));
          row.emplace_back(text != nullptr ? std::string(text, size) : std::string());
        }
      }
    }
    return row;
  }

  // Returns the cached (or newly prepared) statement for `sql` with `params` bound by name.
  Result<sqlite3_stmt*> prepare(std::string_view sql, const std::vector<SqlValue>& params) {
    const std::string key(sql);
    sqlite3_stmt* stmt = nullptr;
    if (auto it = statements_.find(key); it != statements_.end()) {
      stmt = it->second;
    } else {
      const char* tail = nullptr;
      if (sqlite3_prepare_v2(db_, key.c_str(), static_cast<int>(key.size()), &stmt, &tail) != SQLITE_OK) {
        return failure("cannot prepare", sql);
      }
      // Only the first statement of a text runs: refuse the rest rather than silently skip it.
      if (tail != nullptr && std::string_view(tail).find_first_not_of(" \t\r\n;") != std::string_view::npos) {
        sqlite3_finalize(stmt);
        return Error{ErrorCode::internal, fmt::format("'{}' on {} holds more than one statement",
                                                      detail::statement_excerpt(sql), description_)};
      }
      statements_.emplace(key, stmt);
    }
    std::vector<int> used;
    for (int i = 1; i <= sqlite3_bind_parameter_count(stmt); ++i) {
      const char* name = sqlite3_bind_parameter_name(stmt, i);
      const auto n = dollar_number(name);
      if (!n) {
        return Error{ErrorCode::internal, fmt::format("statement '{}' on {}: parameter '{}' is not written $n",
                                                      detail::statement_excerpt(sql), description_,
                                                      name != nullptr ? name : "?")};
      }
      used.push_back(*n);
    }
    if (auto ok = detail::check_parameters(sql, used, params.size(), description_); !ok) return ok.error();
    for (std::size_t i = 0; i < params.size(); ++i) {
      const std::string name = "$" + std::to_string(i + 1);
      if (auto ok = bind(stmt, sqlite3_bind_parameter_index(stmt, name.c_str()), params[i]); !ok) {
        sqlite3_clear_bindings(stmt);
        return failure("cannot bind " + name + " of", sql);
      }
    }
    return stmt;
  }

  static Result<void> bind(sqlite3_stmt* stmt, int index, const SqlValue& value) {
    int rc = SQLITE_OK;
    if (std::holds_alternative<std::monostate>(value)) {
      rc = sqlite3_bind_null(stmt, index);
    } else if (const auto* n = std::get_if<std::int64_t>(&value)) {
      rc = sqlite3_bind_int64(stmt, index, *n);
    } else if (const auto* d = std::get_if<double>(&value)) {
      rc = sqlite3_bind_double(stmt, index, *d);
    } else {
      const auto& s = std::get<std::string>(value);
      rc = sqlite3_bind_text64(stmt, index, s.data(), s.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
    }
    if (rc != SQLITE_OK) return Error{ErrorCode::io, "bind failed"};
    return {};
  }

  sqlite3* db_;
  std::string description_;
  std::map<std::string, sqlite3_stmt*, std::less<>> statements_;
  detail::TransactionState transaction_;
};

// Applies the options' pragmas; the error names the pragma.
Result<void> apply_options(sqlite3* db, const SqliteOptions& options, const std::string& path) {
  sqlite3_busy_timeout(db, options.busy_timeout_ms);
  std::vector<const char*> pragmas;
  if (options.wal_journal) pragmas.push_back("PRAGMA journal_mode=WAL");
  if (options.synchronous_full) pragmas.push_back("PRAGMA synchronous=FULL");
  pragmas.push_back(options.foreign_keys ? "PRAGMA foreign_keys=ON" : "PRAGMA foreign_keys=OFF");
  for (const char* pragma : pragmas) {
    if (sqlite3_exec(db, pragma, nullptr, nullptr, nullptr) != SQLITE_OK) {
      return unexpected(ErrorCode::io,
                        fmt::format("cannot run '{}' on sqlite:{}: {}", pragma, path, sqlite3_errmsg(db)));
    }
  }
  return {};
}

}  // namespace

Result<std::unique_ptr<SqlDatabase>> open_sqlite(const std::filesystem::path& path, const SqliteOptions& options) {
  std::error_code ec;  // a folder that cannot be made is reported by the open below, naming the file
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  sqlite3* db = nullptr;
  const std::string name = path.string();
  const int rc = sqlite3_open_v2(name.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = fmt::format("cannot open SQLite database {}: {}", name,
                                      db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close_v2(db);
    return unexpected(ErrorCode::io, std::move(message));
  }
  if (auto applied = apply_options(db, options, name); !applied) {
    sqlite3_close_v2(db);
    return applied.error();
  }
  return std::unique_ptr<SqlDatabase>(std::make_unique<SqliteDatabase>(db, name));
}

Result<std::unique_ptr<SqlDatabase>> open_sqlite_copy_in_memory(const std::filesystem::path& path) {
  const std::string name = path.string();
  auto failed = [&](sqlite3* db, int rc) {
    return unexpected(ErrorCode::io, fmt::format("cannot read SQLite database {}: {}", name,
                                                 db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc)));
  };
  sqlite3* file = nullptr;
  if (const int rc = sqlite3_open_v2(name.c_str(), &file, SQLITE_OPEN_READONLY, nullptr); rc != SQLITE_OK) {
    auto error = failed(file, rc);
    sqlite3_close_v2(file);
    return error;
  }
  sqlite3* memory = nullptr;
  if (const int rc = sqlite3_open_v2(":memory:", &memory, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr); rc != SQLITE_OK) {
    sqlite3_close_v2(file);
    sqlite3_close_v2(memory);
    return unexpected(ErrorCode::io, fmt::format("cannot open an in-memory SQLite database: {}", sqlite3_errstr(rc)));
  }
  // A failed copy leaves its error on the destination connection once the backup is finished.
  sqlite3_backup* copy = sqlite3_backup_init(memory, "main", file, "main");
  int rc = copy != nullptr ? sqlite3_backup_step(copy, -1) : sqlite3_errcode(memory);
  if (copy != nullptr) sqlite3_backup_finish(copy);
  if (rc != SQLITE_DONE) {
    auto error = failed(memory, rc);
    sqlite3_close_v2(file);
    sqlite3_close_v2(memory);
    return error;
  }
  sqlite3_close_v2(file);
  // A file cut short or overwritten in place copies without complaint and fails a later query instead.
  std::string verdict;
  rc = sqlite3_exec(memory, "PRAGMA quick_check", [](void* out, int columns, char** values, char**) {
    if (columns > 0 && values[0] != nullptr && static_cast<std::string*>(out)->empty()) *static_cast<std::string*>(out) = values[0];
    return 0;
  }, &verdict, nullptr);
  if (rc != SQLITE_OK || verdict != "ok") {
    auto error = unexpected(ErrorCode::io, fmt::format("SQLite database {} is damaged: {}", name,
                                                       rc != SQLITE_OK ? std::string(sqlite3_errmsg(memory)) : verdict));
    sqlite3_close_v2(memory);
    return error;
  }
  if (auto applied = apply_options(memory, SqliteOptions{}, ":memory:"); !applied) {
    sqlite3_close_v2(memory);
    return applied.error();
  }
  return std::unique_ptr<SqlDatabase>(std::make_unique<SqliteDatabase>(memory, ":memory:"));
}

}  // namespace ecocompute::data
