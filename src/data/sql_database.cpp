// SqlDatabase over SQLite: statements are prepared once and cached by their text.
#include "data/sql_database.hpp"

#include <sqlite3.h>

#include <map>

namespace ecocompute::data {
namespace {

class SqliteDatabase final : public SqlDatabase {
 public:
  SqliteDatabase(sqlite3* db, std::string name) : db_(db), name_(std::move(name)) {}
  ~SqliteDatabase() override {
    for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
    sqlite3_close(db_);
  }
  SqliteDatabase(const SqliteDatabase&) = delete;
  SqliteDatabase& operator=(const SqliteDatabase&) = delete;

  Result<std::vector<SqlRow>> query(std::string_view sql, const std::vector<SqlValue>& params) override {
    auto stmt = prepare(sql, params);
    if (!stmt) return stmt.error();
    std::vector<SqlRow> rows;
    while (true) {
      const int rc = sqlite3_step(*stmt);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) return failure("cannot run query");
      SqlRow row;
      const int columns = sqlite3_column_count(*stmt);
      for (int c = 0; c < columns; ++c) {
        switch (sqlite3_column_type(*stmt, c)) {
          case SQLITE_INTEGER: row.emplace_back(static_cast<std::int64_t>(sqlite3_column_int64(*stmt, c))); break;
          case SQLITE_FLOAT: row.emplace_back(sqlite3_column_double(*stmt, c)); break;
          case SQLITE_NULL: row.emplace_back(std::monostate{}); break;
          default: {
            const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(*stmt, c));
            row.emplace_back(std::string(text != nullptr ? text : ""));
          }
        }
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }

  Result<std::int64_t> execute(std::string_view sql, const std::vector<SqlValue>& params) override {
    auto stmt = prepare(sql, params);
    if (!stmt) return stmt.error();
    int rc = sqlite3_step(*stmt);
    while (rc == SQLITE_ROW) rc = sqlite3_step(*stmt);
    if (rc != SQLITE_DONE) return failure("cannot run statement");
    return static_cast<std::int64_t>(sqlite3_changes(db_));
  }

  Result<void> begin() override { return simple("BEGIN IMMEDIATE"); }
  Result<void> commit() override { return simple("COMMIT"); }
  void rollback() noexcept override { sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr); }

 private:
  Error failure(std::string_view what) const {
    return Error{ErrorCode::io, std::string(what) + " on " + name_ + ": " + sqlite3_errmsg(db_)};
  }

  Result<void> simple(const char* sql) {
    if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK) return failure(sql);
    return {};
  }

  Result<sqlite3_stmt*> prepare(std::string_view sql, const std::vector<SqlValue>& params) {
    const std::string key(sql);
    sqlite3_stmt* stmt = nullptr;
    if (auto it = statements_.find(key); it != statements_.end()) {
      stmt = it->second;
      sqlite3_reset(stmt);
      sqlite3_clear_bindings(stmt);
    } else {
      if (sqlite3_prepare_v2(db_, key.c_str(), static_cast<int>(key.size()), &stmt, nullptr) != SQLITE_OK) {
        return failure("cannot prepare '" + key.substr(0, 60) + "'");
      }
      statements_.emplace(key, stmt);
    }
    if (sqlite3_bind_parameter_count(stmt) != static_cast<int>(params.size())) {
      return Error{ErrorCode::internal, "statement '" + key.substr(0, 60) + "' expects " +
                                            std::to_string(sqlite3_bind_parameter_count(stmt)) +
                                            " parameters, got " + std::to_string(params.size())};
    }
    for (std::size_t i = 0; i < params.size(); ++i) {
      const int index = static_cast<int>(i) + 1;
      int rc = SQLITE_OK;
      if (std::holds_alternative<std::monostate>(params[i])) {
        rc = sqlite3_bind_null(stmt, index);
      } else if (const auto* n = std::get_if<std::int64_t>(&params[i])) {
        rc = sqlite3_bind_int64(stmt, index, *n);
      } else if (const auto* d = std::get_if<double>(&params[i])) {
        rc = sqlite3_bind_double(stmt, index, *d);
      } else {
        const auto& s = std::get<std::string>(params[i]);
        rc = sqlite3_bind_text(stmt, index, s.c_str(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
      }
      if (rc != SQLITE_OK) return failure("cannot bind parameter");
    }
    return stmt;
  }

  sqlite3* db_;
  std::string name_;
  std::map<std::string, sqlite3_stmt*> statements_;
};

}  // namespace

Result<std::unique_ptr<SqlDatabase>> open_sqlite(const std::filesystem::path& path) {
  sqlite3* db = nullptr;
  const std::string name = path.string();
  const int rc = sqlite3_open_v2(name.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = "cannot open SQLite database " + name + ": " +
                          (db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
    sqlite3_close(db);
    return unexpected(ErrorCode::io, std::move(message));
  }
  sqlite3_busy_timeout(db, 5000);
  sqlite3_exec(db, "PRAGMA foreign_keys = ON", nullptr, nullptr, nullptr);
  return std::unique_ptr<SqlDatabase>(std::make_unique<SqliteDatabase>(db, name));
}

std::optional<std::string> sql_text(const SqlValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) return *s;
  if (const auto* n = std::get_if<std::int64_t>(&value)) return std::to_string(*n);
  if (const auto* d = std::get_if<double>(&value)) return std::to_string(*d);
  return std::nullopt;
}

std::optional<double> sql_real(const SqlValue& value) {
  if (const auto* d = std::get_if<double>(&value)) return *d;
  if (const auto* n = std::get_if<std::int64_t>(&value)) return static_cast<double>(*n);
  return std::nullopt;
}

std::optional<std::int64_t> sql_integer(const SqlValue& value) {
  if (const auto* n = std::get_if<std::int64_t>(&value)) return *n;
  if (const auto* d = std::get_if<double>(&value)) return static_cast<std::int64_t>(*d);
  return std::nullopt;
}

}  // namespace ecocompute::data
