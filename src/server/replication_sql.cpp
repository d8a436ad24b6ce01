// The replication store's SQL: its migrations and the mapping between a Replication and a row.
#include "server/replication_sql.hpp"

#include <fmt/format.h>

namespace ecocompute::server::detail {

const std::vector<Migration>& migrations() {
  static const std::vector<Migration> all{
      {1,
       {"CREATE TABLE replications ("
        " id {id},"
        " report_json TEXT NOT NULL,"
        " report_sha256 TEXT NOT NULL UNIQUE,"
        " model_name TEXT, params_b DOUBLE PRECISION, gpu TEXT, gpu_arch TEXT, precision TEXT, engine TEXT,"
        " basis TEXT, energy_per_token_mj DOUBLE PRECISION, vs_fp16_energy_pct DOUBLE PRECISION,"
        " grade TEXT NOT NULL, grade_reason TEXT NOT NULL, grade_json TEXT NOT NULL,"
        " received_at_utc TEXT NOT NULL)",
        "CREATE INDEX replications_arch_precision ON replications (gpu_arch, precision)"}},
  };
  return all;
}

std::string dialect_statement(std::string_view statement, std::string_view id_column) {
  std::string out(statement);
  if (const auto at = out.find("{id}"); at != std::string::npos) out.replace(at, 4, id_column);
  return out;
}

namespace {
SqlValue text(const std::optional<std::string>& value) {
  return value ? SqlValue{*value} : SqlValue{};
}
SqlValue number(const std::optional<double>& value) {
  return value ? SqlValue{*value} : SqlValue{};
}

// A nullable real column; text that is not a number is an error rather than a NULL.
Result<std::optional<double>> as_number(const SqlValue& value, std::string_view column) {
  if (std::holds_alternative<std::monostate>(value)) return std::optional<double>{};
  if (auto real = data::sql_real(value)) return std::optional<double>{*real};
  return unexpected(ErrorCode::internal, fmt::format("stored column {} holds a non-number '{}'", column,
                                                     data::sql_text(value).value_or("")));
}
}  // namespace

std::vector<SqlValue> insert_parameters(const NewReplication& r, const std::string& received_at_utc) {
  return {r.report_json,          r.report_sha256,        text(r.model_name), number(r.params_b),
          text(r.gpu),            text(r.gpu_arch),       text(r.precision),  text(r.engine),
          text(r.basis),          number(r.energy_per_token_mj), number(r.vs_fp16_energy_pct),
          r.grade,                r.grade_reason,         r.grade_json,       received_at_utc};
}

std::vector<SqlValue> query_parameters(const ReplicationQuery& query, bool with_page) {
  std::vector<SqlValue> out{text(query.gpu_arch), text(query.precision)};
  if (with_page) {
    out.emplace_back(static_cast<std::int64_t>(query.limit));
    out.emplace_back(static_cast<std::int64_t>(query.offset));
  }
  return out;
}

Result<Replication> replication_from_row(const SqlRow& row) {
  if (row.size() != 16) {
    return unexpected(ErrorCode::internal, fmt::format("replication row has {} columns, expected 16", row.size()));
  }
  Replication r;
  const auto id = data::sql_integer(row[0]);
  if (!id) return unexpected(ErrorCode::internal, "stored replication has no integer id");
  r.id = *id;
  r.report_json = data::sql_text(row[1]).value_or("");
  r.report_sha256 = data::sql_text(row[2]).value_or("");
  r.model_name = data::sql_text(row[3]);
  auto params_b = as_number(row[4], "params_b");
  if (!params_b) return params_b.error();
  r.params_b = *params_b;
  r.gpu = data::sql_text(row[5]);
  r.gpu_arch = data::sql_text(row[6]);
  r.precision = data::sql_text(row[7]);
  r.engine = data::sql_text(row[8]);
  r.basis = data::sql_text(row[9]);
  auto energy = as_number(row[10], "energy_per_token_mj");
  if (!energy) return energy.error();
  r.energy_per_token_mj = *energy;
  auto delta = as_number(row[11], "vs_fp16_energy_pct");
  if (!delta) return delta.error();
  r.vs_fp16_energy_pct = *delta;
  r.grade = data::sql_text(row[12]).value_or("");
  r.grade_reason = data::sql_text(row[13]).value_or("");
  r.grade_json = data::sql_text(row[14]).value_or("{}");
  r.received_at_utc = data::sql_text(row[15]).value_or("");
  return r;
}

Result<void> validate_query(const ReplicationQuery& query) {
  if (query.limit < 1 || query.limit > 500) {
    return unexpected(ErrorCode::invalid_argument, fmt::format("limit {} is outside 1..500", query.limit));
  }
  if (query.offset < 0) {
    return unexpected(ErrorCode::invalid_argument, fmt::format("offset {} is negative", query.offset));
  }
  return {};
}

Result<std::vector<Replication>> replications_from_rows(const std::vector<SqlRow>& rows) {
  std::vector<Replication> out;
  out.reserve(rows.size());
  for (const auto& row : rows) {
    auto replication = replication_from_row(row);
    if (!replication) return replication.error();
    out.push_back(std::move(replication).value());
  }
  return out;
}

Result<std::optional<Replication>> first_replication(const std::vector<SqlRow>& rows) {
  if (rows.empty()) return std::optional<Replication>{};
  auto replication = replication_from_row(rows.front());
  if (!replication) return replication.error();
  return std::optional<Replication>{std::move(replication).value()};
}

}  // namespace ecocompute::server::detail
