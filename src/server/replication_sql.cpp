// Shared SQL of the replication stores.
#include "server/replication_sql.hpp"

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <ctime>

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

std::string to_dollar_placeholders(std::string_view sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  int next = 1;
  bool in_quote = false;
  for (const char c : sql) {
    if (c == '\'') in_quote = !in_quote;
    if (c == '?' && !in_quote) {
      out += '$' + std::to_string(next++);
    } else {
      out += c;
    }
  }
  return out;
}

namespace {
SqlValue text(const std::optional<std::string>& value) {
  return value ? SqlValue{*value} : SqlValue{};
}
SqlValue number(const std::optional<double>& value) {
  return value ? SqlValue{*value} : SqlValue{};
}

std::optional<std::string> as_text(const SqlValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) return *s;
  return std::nullopt;
}

Result<std::optional<double>> as_number(const SqlValue& value, std::string_view column) {
  if (std::holds_alternative<std::monostate>(value)) return std::optional<double>{};
  if (const auto* d = std::get_if<double>(&value)) return std::optional<double>{*d};
  if (const auto* i = std::get_if<std::int64_t>(&value)) return std::optional<double>{static_cast<double>(*i)};
  const std::string& s = std::get<std::string>(value);
  char* end = nullptr;
  const double parsed = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0') {
    return unexpected(ErrorCode::internal, fmt::format("stored column {} holds a non-number '{}'", column, s));
  }
  return std::optional<double>{parsed};
}
}  // namespace

std::vector<SqlValue> insert_parameters(const NewReplication& r, const std::string& received_at_utc) {
  return {r.report_json,          r.report_sha256,        text(r.model_name), number(r.params_b),
          text(r.gpu),            text(r.gpu_arch),       text(r.precision),  text(r.engine),
          text(r.basis),          number(r.energy_per_token_mj), number(r.vs_fp16_energy_pct),
          r.grade,                r.grade_reason,         r.grade_json,       received_at_utc};
}

std::vector<SqlValue> query_parameters(const ReplicationQuery& query, bool with_page) {
  std::vector<SqlValue> out{text(query.gpu_arch), text(query.gpu_arch), text(query.precision),
                            text(query.precision)};
  if (with_page) {
    out.emplace_back(static_cast<std::int64_t>(query.limit));
    out.emplace_back(static_cast<std::int64_t>(query.offset));
  }
  return out;
}

Result<Replication> replication_from_row(const std::vector<SqlValue>& row) {
  if (row.size() != 16) {
    return unexpected(ErrorCode::internal, fmt::format("replication row has {} columns, expected 16", row.size()));
  }
  Replication r;
  auto id = as_number(row[0], "id");
  if (!id) return id.error();
  r.id = static_cast<std::int64_t>(id->value_or(0));
  if (const auto* i = std::get_if<std::int64_t>(&row[0])) r.id = *i;  // exact for large ids
  r.report_json = as_text(row[1]).value_or("");
  r.report_sha256 = as_text(row[2]).value_or("");
  r.model_name = as_text(row[3]);
  auto params_b = as_number(row[4], "params_b");
  if (!params_b) return params_b.error();
  r.params_b = *params_b;
  r.gpu = as_text(row[5]);
  r.gpu_arch = as_text(row[6]);
  r.precision = as_text(row[7]);
  r.engine = as_text(row[8]);
  r.basis = as_text(row[9]);
  auto energy = as_number(row[10], "energy_per_token_mj");
  if (!energy) return energy.error();
  r.energy_per_token_mj = *energy;
  auto delta = as_number(row[11], "vs_fp16_energy_pct");
  if (!delta) return delta.error();
  r.vs_fp16_energy_pct = *delta;
  r.grade = as_text(row[12]).value_or("");
  r.grade_reason = as_text(row[13]).value_or("");
  r.grade_json = as_text(row[14]).value_or("{}");
  r.received_at_utc = as_text(row[15]).value_or("");
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

Result<std::vector<Replication>> replications_from_rows(const std::vector<std::vector<SqlValue>>& rows) {
  std::vector<Replication> out;
  out.reserve(rows.size());
  for (const auto& row : rows) {
    auto replication = replication_from_row(row);
    if (!replication) return replication.error();
    out.push_back(std::move(replication).value());
  }
  return out;
}

Result<std::optional<Replication>> first_replication(const std::vector<std::vector<SqlValue>>& rows) {
  if (rows.empty()) return std::optional<Replication>{};
  auto replication = replication_from_row(rows.front());
  if (!replication) return replication.error();
  return std::optional<Replication>{std::move(replication).value()};
}

}  // namespace ecocompute::server::detail

namespace ecocompute::server {

std::string utc_now_iso8601() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buffer[32];
  std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buffer;
}

std::string redact_url(const std::string& url) {
  // scheme://user:password@host… → scheme://user:***@host…; a password=… parameter likewise.
  std::string out = url;
  const auto scheme_end = out.find("://");
  if (scheme_end != std::string::npos) {
    const auto at = out.find('@', scheme_end + 3);
    const auto colon = out.find(':', scheme_end + 3);
    if (at != std::string::npos && colon != std::string::npos && colon < at) {
      out.replace(colon + 1, at - colon - 1, "***");
    }
  }
  if (const auto p = out.find("password="); p != std::string::npos) {
    const auto end = out.find('&', p);
    out.replace(p + 9, (end == std::string::npos ? out.size() : end) - p - 9, "***");
  }
  return out;
}

Result<std::unique_ptr<ReplicationStore>> open_replication_store(const std::string& location) {
  if (location.rfind("postgresql://", 0) == 0 || location.rfind("postgres://", 0) == 0) {
    return open_postgres_replication_store(location);
  }
  if (location.empty()) {
    return unexpected(ErrorCode::invalid_argument, "the replications database location is empty");
  }
  return open_sqlite_replication_store(location);
}

}  // namespace ecocompute::server
