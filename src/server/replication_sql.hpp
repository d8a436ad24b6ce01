// The SQL of the replication store: schema migrations, statements, and the mapping between a
// Replication and a row of parameters. One text per statement for both SQLite and PostgreSQL, with
// `$1, $2, …` placeholders, run through data::SqlDatabase.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "data/sql_database.hpp"
#include "server/replication_store.hpp"

namespace ecocompute::server::detail {

using data::SqlRow;
using data::SqlValue;

/// One schema migration: its version and its statements ({id} stands for the dialect's id column).
struct Migration {
  int version;
  std::vector<std::string_view> statements;
};

/// Returns every migration, oldest first.
const std::vector<Migration>& migrations();

/// Returns a migration statement for a dialect: `{id}` replaced by `id_column`
/// (data::auto_increment_id_column of the connection's dialect).
std::string dialect_statement(std::string_view statement, std::string_view id_column);

inline constexpr std::string_view create_migrations_table =
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at_utc TEXT NOT NULL)";
inline constexpr std::string_view select_schema_version = "SELECT COALESCE(MAX(version), 0) FROM schema_migrations";
inline constexpr std::string_view insert_migration =
    "INSERT INTO schema_migrations (version, applied_at_utc) VALUES ($1, $2)";

/// The stored columns, in the order of insert parameters and of selected values (id first when selected).
inline constexpr std::string_view columns =
    "report_json, report_sha256, model_name, params_b, gpu, gpu_arch, precision, engine, basis, "
    "energy_per_token_mj, vs_fp16_energy_pct, grade, grade_reason, grade_json, received_at_utc";
inline constexpr std::string_view insert_replication =
    "INSERT INTO replications (report_json, report_sha256, model_name, params_b, gpu, gpu_arch, precision, "
    "engine, basis, energy_per_token_mj, vs_fp16_energy_pct, grade, grade_reason, grade_json, received_at_utc) "
    "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) "
    "ON CONFLICT (report_sha256) DO NOTHING RETURNING id";
inline constexpr std::string_view select_by_sha =
    "SELECT id, report_json, report_sha256, model_name, params_b, gpu, gpu_arch, precision, engine, basis, "
    "energy_per_token_mj, vs_fp16_energy_pct, grade, grade_reason, grade_json, received_at_utc "
    "FROM replications WHERE report_sha256 = $1";
inline constexpr std::string_view select_by_id =
    "SELECT id, report_json, report_sha256, model_name, params_b, gpu, gpu_arch, precision, engine, basis, "
    "energy_per_token_mj, vs_fp16_energy_pct, grade, grade_reason, grade_json, received_at_utc "
    "FROM replications WHERE id = $1";
// A filter that is NULL matches every row, so one prepared statement serves every combination.
inline constexpr std::string_view select_page =
    "SELECT id, report_json, report_sha256, model_name, params_b, gpu, gpu_arch, precision, engine, basis, "
    "energy_per_token_mj, vs_fp16_energy_pct, grade, grade_reason, grade_json, received_at_utc "
    "FROM replications WHERE (CAST($1 AS TEXT) IS NULL OR gpu_arch = $1) AND "
    "(CAST($2 AS TEXT) IS NULL OR precision = $2) ORDER BY id DESC LIMIT $3 OFFSET $4";
inline constexpr std::string_view count_rows =
    "SELECT COUNT(*) FROM replications WHERE (CAST($1 AS TEXT) IS NULL OR gpu_arch = $1) AND "
    "(CAST($2 AS TEXT) IS NULL OR precision = $2)";

/// Returns the insert parameters of `replication` in `columns` order, with `received_at_utc` last.
std::vector<SqlValue> insert_parameters(const NewReplication& replication, const std::string& received_at_utc);

/// Returns the filter parameters of `query` for select_page / count_rows (limit and offset appended
/// when `with_page`).
std::vector<SqlValue> query_parameters(const ReplicationQuery& query, bool with_page);

/// Builds a Replication from a selected row (id, then `columns`); numeric columns may arrive as text
/// (PostgreSQL's text format) or as numbers (SQLite).
Result<Replication> replication_from_row(const SqlRow& row);

/// Builds every row of a select_page result, in order; the first bad row's error.
Result<std::vector<Replication>> replications_from_rows(const std::vector<SqlRow>& rows);

/// Builds the first row of a select_by_id result; empty when there is none.
Result<std::optional<Replication>> first_replication(const std::vector<SqlRow>& rows);

/// Checks a query's limit and offset; the error names the bad value.
Result<void> validate_query(const ReplicationQuery& query);

}  // namespace ecocompute::server::detail
