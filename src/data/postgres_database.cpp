// SqlDatabase over PostgreSQL through libpq: parameters travel as text (NULL as a null pointer) and
// the server infers their types from the statement; results come back as text, which the typed
// readers of sql_database.hpp parse. A connection that dropped is reset before the next statement.
#include <postgresql/libpq-fe.h>

#include <charconv>
#include <climits>
#include <cmath>

#include <fmt/format.h>

#include "data/sql_database.hpp"
#include "util/trim.hpp"

namespace ecocompute::data {
namespace {

struct PgCloser {
  void operator()(PGconn* c) const noexcept { PQfinish(c); }
  void operator()(PGresult* r) const noexcept { PQclear(r); }
};
using Connection = std::unique_ptr<PGconn, PgCloser>;
using PgResult = std::unique_ptr<PGresult, PgCloser>;

bool identifier_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '$' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool digit(char c) { return c >= '0' && c <= '9'; }

// Returns the n of every $n placeholder of `sql`, skipping string literals, quoted identifiers,
// comments and dollar-quoted bodies, where a "$1" is text rather than a parameter.
std::vector<int> dollar_placeholders(std::string_view sql) {
  std::vector<int> out;
  const auto skip_past = [&](std::size_t from, std::string_view end) {
    const auto at = sql.find(end, from);
    return at == std::string_view::npos ? sql.size() : at + end.size();
  };
  std::size_t i = 0;
  while (i < sql.size()) {
    const char c = sql[i];
    const char next = i + 1 < sql.size() ? sql[i + 1] : '\0';
    const bool after_identifier = i > 0 && identifier_char(sql[i - 1]);
    if (c == '\'' || c == '"') {  // a doubled quote inside reads as two adjacent literals: same extent
      i = skip_past(i + 1, std::string_view(&sql[i], 1));
    } else if (c == '-' && next == '-') {
      i = skip_past(i + 2, "\n");
    } else if (c == '/' && next == '*') {
      i = skip_past(i + 2, "*/");
    } else if (c == '$' && digit(next) && !after_identifier) {
      std::size_t end = i + 1;
      while (end < sql.size() && digit(sql[end])) ++end;
      int n = INT_MAX;  // too large to be given: check_parameters reports it
      std::from_chars(sql.data() + i + 1, sql.data() + end, n);
      out.push_back(n);
      i = end;
    } else if (c == '$' && !after_identifier) {  // $tag$ … $tag$, the tag possibly empty
      std::size_t end = i + 1;
      while (end < sql.size() && sql[end] != '$' && identifier_char(sql[end])) ++end;
      if (end < sql.size() && sql[end] == '$') {
        i = skip_past(end + 1, sql.substr(i, end - i + 1));
      } else {
        i = end;
      }
    } else {
      ++i;
    }
  }
  return out;
}

std::string parameter_text(const SqlValue& value) {
  if (const auto* s = std::get_if<std::string>(&value)) return *s;
  if (const auto* n = std::get_if<std::int64_t>(&value)) return std::to_string(*n);
  if (const auto* d = std::get_if<double>(&value)) {
    if (std::isnan(*d)) return "NaN";
    if (std::isinf(*d)) return *d > 0 ? "Infinity" : "-Infinity";
    return fmt::format("{}", *d);  // the shortest text that reads back as the same double
  }
  return {};
}

class PostgresDatabase final : public SqlDatabase {
 public:
  PostgresDatabase(Connection connection, std::string redacted_url)
      : connection_(std::move(connection)), description_(std::move(redacted_url)) {}

  Result<std::vector<SqlRow>> query(std::string_view sql, const std::vector<SqlValue>& params) override {
    auto result = run(sql, params);
    if (!result) return result.error();
    PGresult* r = result->get();
    std::vector<SqlRow> rows;
    rows.reserve(static_cast<std::size_t>(PQntuples(r)));
    for (int row = 0; row < PQntuples(r); ++row) {
      SqlRow& out = rows.emplace_back();
      for (int c = 0; c < PQnfields(r); ++c) {
        if (PQgetisnull(r, row, c) != 0) {
          out.emplace_back(std::monostate{});
        } else {
          out.emplace_back(std::string(PQgetvalue(r, row, c), static_cast<std::size_t>(PQgetlength(r, row, c))));
        }
      }
    }
    return rows;
  }

  Result<std::int64_t> execute(std::string_view sql, const std::vector<SqlValue>& params) override {
    auto result = run(sql, params);
    if (!result) return result.error();
    const std::string_view changed = PQcmdTuples(result->get());  // "" for statements that change no rows
    std::int64_t n = 0;
    std::from_chars(changed.data(), changed.data() + changed.size(), n);
    return n;
  }

  Result<void> begin() override {
    auto result = run("BEGIN", {});
    if (!result) return result.error();
    transaction_.begun();
    return {};
  }

  Result<void> commit() override {
    if (transaction_.failed()) {
      rollback();
      return unexpected(ErrorCode::io, fmt::format("the transaction on {} was rolled back: a statement in it failed",
                                                   description_));
    }
    auto result = run("COMMIT", {});
    if (!result) return result.error();
    transaction_.ended();
    // A COMMIT the server answers with ROLLBACK (its transaction had failed) wrote nothing.
    if (std::string_view(PQcmdStatus(result->get())) != "COMMIT") {
      return unexpected(ErrorCode::io, fmt::format("the transaction on {} was rolled back by the server, not committed",
                                                   description_));
    }
    return {};
  }

  void rollback() noexcept override {
    if (PQstatus(connection_.get()) == CONNECTION_OK) PQclear(PQexec(connection_.get(), "ROLLBACK"));
    transaction_.ended();
  }

  Result<void> lock_table(std::string_view table) override {
    if (auto ok = detail::check_identifier(table); !ok) return ok;
    auto result = run(fmt::format("LOCK TABLE {} IN EXCLUSIVE MODE", table), {});
    if (!result) return result.error();
    return {};
  }

  [[nodiscard]] SqlDialect dialect() const override { return SqlDialect::postgresql; }
  [[nodiscard]] std::string describe() const override { return description_; }

 private:
  // Reconnects a connection that dropped. Inside a transaction the server has already rolled it
  // back, so the transaction fails as a whole: its later statements and its commit return errors.
  Result<void> ensure_connected() {
    if (PQstatus(connection_.get()) == CONNECTION_OK) return {};
    PQreset(connection_.get());
    if (PQstatus(connection_.get()) != CONNECTION_OK) {
      transaction_.fail();
      return unexpected(ErrorCode::unavailable, fmt::format("lost the connection to PostgreSQL at {}: {}", description_,
                                                            trimmed(PQerrorMessage(connection_.get()))));
    }
    if (transaction_.open()) {
      transaction_.fail();
      return unexpected(ErrorCode::io, fmt::format("the connection to {} dropped during a transaction, which the "
                                                   "server rolled back", description_));
    }
    return {};
  }

  // Runs one statement with `params` as text parameters; the error names the statement and the server.
  Result<PgResult> run(std::string_view sql, const std::vector<SqlValue>& params) {
    if (auto usable = transaction_.check(sql, description_); !usable) return usable.error();
    if (auto connected = ensure_connected(); !connected) return connected.error();
    return transaction_.record(run_connected(sql, params));
  }

  Result<PgResult> run_connected(std::string_view sql, const std::vector<SqlValue>& params) {
    if (auto ok = detail::check_parameters(sql, dollar_placeholders(sql), params.size(), description_); !ok) {
      return ok.error();
    }
    std::vector<std::string> texts;
    std::vector<const char*> values;
    texts.reserve(params.size());
    for (const SqlValue& p : params) texts.push_back(parameter_text(p));
    for (std::size_t i = 0; i < texts.size(); ++i) {
      // libpq reads a text parameter up to its first NUL: refuse rather than store a truncated value.
      if (texts[i].find('\0') != std::string::npos) {
        return unexpected(ErrorCode::invalid_input,
                          fmt::format("statement '{}' on {}: parameter ${} holds a NUL character, which PostgreSQL "
                                      "text cannot store", detail::statement_excerpt(sql), description_, i + 1));
      }
    }
    for (std::size_t i = 0; i < params.size(); ++i) {
      values.push_back(std::holds_alternative<std::monostate>(params[i]) ? nullptr : texts[i].c_str());
    }
    const std::string statement(sql);
    PgResult result(PQexecParams(connection_.get(), statement.c_str(), static_cast<int>(params.size()), nullptr,
                                 values.data(), nullptr, nullptr, 0));
    const ExecStatusType status = PQresultStatus(result.get());
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
      const char* primary = result ? PQresultErrorField(result.get(), PG_DIAG_MESSAGE_PRIMARY) : nullptr;
      const std::string why = primary != nullptr ? primary : trimmed(PQerrorMessage(connection_.get()));
      return unexpected(ErrorCode::io, fmt::format("cannot run '{}' on {}: {}", detail::statement_excerpt(sql),
                                                   description_, why));
    }
    return result;
  }

  Connection connection_;
  std::string description_;
  detail::TransactionState transaction_;
};

}  // namespace

Result<std::unique_ptr<SqlDatabase>> open_postgres(const std::string& url) {
  Connection connection(PQconnectdb(url.c_str()));
  if (!connection || PQstatus(connection.get()) != CONNECTION_OK) {
    return unexpected(ErrorCode::unavailable,
                      fmt::format("cannot connect to PostgreSQL at {}: {}", redact_url(url),
                                  connection ? trimmed(PQerrorMessage(connection.get())) : "out of memory"));
  }
  // Quiet the server's NOTICE lines (e.g. "relation already exists, skipping") on stderr.
  PQsetNoticeProcessor(connection.get(), [](void*, const char*) {}, nullptr);
  return std::unique_ptr<SqlDatabase>(std::make_unique<PostgresDatabase>(std::move(connection), redact_url(url)));
}

}  // namespace ecocompute::data
