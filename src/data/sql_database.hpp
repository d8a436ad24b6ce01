// SqlDatabase: the small seam between the dataset store and a SQL engine (SQLite here; PostgreSQL
// for a shared server deployment implements the same interface). Prepared statements only.
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

/// A bound parameter or a result column: NULL, integer, real or text.
using SqlValue = std::variant<std::monostate, std::int64_t, double, std::string>;
using SqlRow = std::vector<SqlValue>;

/// A connection that runs parameterized statements. Parameters are written `$1`, `$2`, … in
/// order of first use (both SQLite and PostgreSQL accept that spelling). Not thread-safe.
class SqlDatabase {
 public:
  virtual ~SqlDatabase() = default;

  /// Runs a statement with bound parameters and returns every result row.
  virtual Result<std::vector<SqlRow>> query(std::string_view sql, const std::vector<SqlValue>& params) = 0;
  /// Runs a statement with bound parameters and returns the number of rows it changed.
  virtual Result<std::int64_t> execute(std::string_view sql, const std::vector<SqlValue>& params) = 0;
  /// Starts, commits or rolls back a transaction.
  virtual Result<void> begin() = 0;
  virtual Result<void> commit() = 0;
  virtual void rollback() noexcept = 0;
};

/// Opens (creating if needed) an SQLite database file; ":memory:" opens a private in-memory one.
Result<std::unique_ptr<SqlDatabase>> open_sqlite(const std::filesystem::path& path);

/// Reads a column as text / real / integer; NULL becomes std::nullopt.
std::optional<std::string> sql_text(const SqlValue& value);
std::optional<double> sql_real(const SqlValue& value);
std::optional<std::int64_t> sql_integer(const SqlValue& value);

}  // namespace ecocompute::data
