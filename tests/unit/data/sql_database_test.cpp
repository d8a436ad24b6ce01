// One test suite for both SqlDatabase implementations: SQLite (always, a file in a temporary folder)
// and PostgreSQL (when ECOCOMPUTE_TEST_PG_URL names a server; scripts/start_postgres.sh starts one).
// Each PostgreSQL test works in its own schema, so tests may run in parallel against one database.
#include "data/sql_database.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <thread>

#include "support/postgres_schema.hpp"

namespace ecocompute::data {
namespace {

namespace fs = std::filesystem;

enum class Engine { sqlite, postgres };

std::string error_text(const Error& e) { return e.describe(); }

class SqlDatabaseTest : public ::testing::TestWithParam<Engine> {
 protected:
  void SetUp() override {
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::string safe;
    for (char c : name) safe += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
    if (GetParam() == Engine::sqlite) {
      dir_ = fs::temp_directory_path() / ("ecocompute_sql_test_" + safe + "_" + std::to_string(::getpid()));
      fs::remove_all(dir_);
      location_ = (dir_ / "test.sqlite").string();  // the folder does not exist yet: open_sqlite makes it
      return;
    }
    schema_.create("s");
    location_ = schema_.url();
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }
  std::unique_ptr<SqlDatabase> open() const {
    auto db = open_database(location_);
    EXPECT_TRUE(db) << (db ? "" : error_text(db.error()));
    return db ? std::move(db).value() : nullptr;
  }
  // Returns the one integer a statement selects, or -1 (with a test failure) when it does not.
  static std::int64_t integer(SqlDatabase& db, std::string_view sql, const std::vector<SqlValue>& params = {}) {
    auto rows = db.query(sql, params);
    EXPECT_TRUE(rows) << (rows ? "" : error_text(rows.error()));
    if (!rows || rows->size() != 1 || rows->front().size() != 1) return -1;
    return sql_integer(rows->front().front()).value_or(-1);
  }

  fs::path dir_;
  ecocompute::testing::PostgresSchema schema_;
  std::string location_;
};

TEST_P(SqlDatabaseTest, OpensTheEngineTheLocationNames) {
  auto db = open();
  ASSERT_TRUE(db);
  if (GetParam() == Engine::sqlite) {
    EXPECT_EQ(db->dialect(), SqlDialect::sqlite);
    EXPECT_EQ(db->describe(), "sqlite:" + location_);
    EXPECT_TRUE(fs::exists(location_));
  } else {
    EXPECT_EQ(db->dialect(), SqlDialect::postgresql);
    EXPECT_EQ(db->describe(), redact_url(location_));
  }
}

TEST_P(SqlDatabaseTest, NullIntegerRealAndTextRoundTrip) {
  auto db = open();
  ASSERT_TRUE(db);
  ASSERT_TRUE(db->execute("CREATE TABLE v (k BIGINT, n TEXT, i BIGINT, r DOUBLE PRECISION, s TEXT)", {}));
  // Integers beyond 2^53 would lose their last digits through a double; reals must keep every bit;
  // text keeps quotes, SQL and non-ASCII characters as they are.
  const std::vector<std::int64_t> integers{9007199254740993, std::numeric_limits<std::int64_t>::min(), 0};
  const std::vector<double> reals{0.1, 3584.88, -2.5e-300};
  const std::vector<std::string> texts{"it's; DROP TABLE v; --", "Ünïcode ‘quoted’ $1 ?", ""};
  for (std::size_t k = 0; k < 3; ++k) {
    auto n = db->execute("INSERT INTO v (k, n, i, r, s) VALUES ($1, $2, $3, $4, $5)",
                         {static_cast<std::int64_t>(k), std::monostate{}, integers[k], reals[k], texts[k]});
    ASSERT_TRUE(n) << error_text(n.error());
    EXPECT_EQ(*n, 1);
  }
  auto rows = db->query("SELECT n, i, r, s FROM v ORDER BY k", {});
  ASSERT_TRUE(rows) << error_text(rows.error());
  ASSERT_EQ(rows->size(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    const SqlRow& row = (*rows)[k];
    ASSERT_EQ(row.size(), 4u);
    EXPECT_TRUE(std::holds_alternative<std::monostate>(row[0]));
    EXPECT_EQ(sql_text(row[0]), std::nullopt);
    EXPECT_EQ(sql_real(row[0]), std::nullopt);
    EXPECT_EQ(sql_integer(row[0]), std::nullopt);
    EXPECT_EQ(sql_integer(row[1]), integers[k]);
    EXPECT_EQ(sql_real(row[2]), reals[k]);  // exactly: no digits lost on the way in or out
    EXPECT_EQ(sql_text(row[3]), texts[k]);
  }
}

TEST_P(SqlDatabaseTest, TextWithANulCharacterIsKeptWholeOrRefusedNeverCut) {
  auto db = open();
  ASSERT_TRUE(db);
  ASSERT_TRUE(db->execute("CREATE TABLE t (s TEXT)", {}));
  const std::string with_nul("before\0after", 12);
  auto n = db->execute("INSERT INTO t (s) VALUES ($1)", {with_nul});
  if (GetParam() == Engine::sqlite) {
    ASSERT_TRUE(n) << error_text(n.error());
    auto rows = db->query("SELECT s FROM t", {});
    ASSERT_TRUE(rows && rows->size() == 1);
    EXPECT_EQ(sql_text(rows->front().at(0)), with_nul);
  } else {  // PostgreSQL text cannot hold a NUL
    ASSERT_FALSE(n);
    EXPECT_EQ(n.error().code(), ErrorCode::invalid_input);
    EXPECT_EQ(integer(*db, "SELECT COUNT(*) FROM t"), 0);
  }
}

TEST_P(SqlDatabaseTest, ParametersAreBoundByNumberInAnyOrderAndMayRepeat) {
  auto db = open();
  ASSERT_TRUE(db);
  auto rows = db->query("SELECT CAST($2 AS TEXT) || CAST($1 AS TEXT) || CAST($1 AS TEXT)",
                        {std::string("a"), std::string("b")});
  ASSERT_TRUE(rows) << error_text(rows.error());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(sql_text(rows->front().at(0)), "baa");
  EXPECT_EQ(integer(*db, "SELECT CAST($2 AS BIGINT) - CAST($1 AS BIGINT)", {std::int64_t{1}, std::int64_t{10}}), 9);
  // A "$1" inside a string literal is text, not a parameter.
  auto quoted = db->query("SELECT '$1', CAST($1 AS TEXT)", {std::string("x")});
  ASSERT_TRUE(quoted) << error_text(quoted.error());
  EXPECT_EQ(sql_text(quoted->front().at(0)), "$1");
  EXPECT_EQ(sql_text(quoted->front().at(1)), "x");
}

TEST_P(SqlDatabaseTest, AWrongParameterCountIsAnErrorNamingTheStatement) {
  auto db = open();
  ASSERT_TRUE(db);
  const std::string statement = "SELECT CAST($1 AS TEXT) AS probe_of_the_count";
  for (const std::vector<SqlValue>& params :
       {std::vector<SqlValue>{}, std::vector<SqlValue>{std::string("a"), std::string("b")}}) {
    auto rows = db->query(statement, params);
    ASSERT_FALSE(rows) << params.size() << " parameters";
    EXPECT_EQ(rows.error().code(), ErrorCode::internal);
    EXPECT_NE(rows.error().message().find(statement), std::string::npos) << rows.error().message();
    EXPECT_NE(rows.error().message().find(db->describe()), std::string::npos) << rows.error().message();
  }
  // $1 and $3 used, three given: $2 is given but never used.
  auto gap = db->query("SELECT CAST($1 AS TEXT), CAST($3 AS TEXT)",
                       {std::string("a"), std::string("b"), std::string("c")});
  ASSERT_FALSE(gap);
  EXPECT_NE(gap.error().message().find("$2 is not used"), std::string::npos) << gap.error().message();
  // The same statement with the right parameters runs: the errors above were about the count only.
  EXPECT_TRUE(db->query(statement, {std::string("a")}));
}

TEST_P(SqlDatabaseTest, OneTextRunsOneStatement) {
  auto db = open();
  ASSERT_TRUE(db);
  ASSERT_TRUE(db->execute("CREATE TABLE t (s TEXT)", {}));
  EXPECT_FALSE(db->execute("INSERT INTO t (s) VALUES ('a'); INSERT INTO t (s) VALUES ('b')", {}));
  EXPECT_EQ(integer(*db, "SELECT COUNT(*) FROM t"), 0);
}

TEST_P(SqlDatabaseTest, AFailedStatementInsideATransactionRollsBackEverything) {
  auto db = open();
  ASSERT_TRUE(db);
  ASSERT_TRUE(db->execute("CREATE TABLE t (id BIGINT PRIMARY KEY, s TEXT NOT NULL)", {}));
  const std::string insert = "INSERT INTO t (id, s) VALUES ($1, $2)";

  // Through in_transaction: the duplicate key fails, and the two rows before it go too.
  Result<void> written = in_transaction(*db, [&]() -> Result<void> {
    for (const std::int64_t id : {1, 2, 1}) {
      if (auto n = db->execute(insert, {id, std::string("row")}); !n) return n.error();
    }
    return {};
  });
  ASSERT_FALSE(written);
  EXPECT_EQ(integer(*db, "SELECT COUNT(*) FROM t"), 0);

  // By hand: after a failed statement the rest of the transaction and its commit fail too.
  ASSERT_TRUE(db->begin());
  ASSERT_TRUE(db->execute(insert, {std::int64_t{1}, std::string("kept?")}));
  EXPECT_FALSE(db->execute(insert, {std::int64_t{2}, std::monostate{}}));  // NOT NULL
  EXPECT_FALSE(db->execute(insert, {std::int64_t{3}, std::string("after the failure")}));
  EXPECT_FALSE(db->commit());
  db->rollback();
  EXPECT_EQ(integer(*db, "SELECT COUNT(*) FROM t"), 0);

  // A transaction without failures commits, and another connection sees it.
  ASSERT_TRUE(in_transaction(*db, [&] { return db->execute(insert, {std::int64_t{7}, std::string("seven")}); }));
  auto other = open();
  ASSERT_TRUE(other);
  EXPECT_EQ(integer(*other, "SELECT id FROM t WHERE s = $1", {std::string("seven")}), 7);
}

TEST_P(SqlDatabaseTest, TheErrorOfABadStatementNamesTheDatabase) {
  auto db = open();
  ASSERT_TRUE(db);
  auto rows = db->query("SELEC nothing FROM nowhere", {});
  ASSERT_FALSE(rows);
  EXPECT_EQ(rows.error().code(), ErrorCode::io);
  EXPECT_NE(rows.error().message().find(db->describe()), std::string::npos) << rows.error().message();
  EXPECT_NE(rows.error().message().find("SELEC nothing FROM nowhere"), std::string::npos) << rows.error().message();
  auto missing = db->execute("INSERT INTO no_such_table (a) VALUES ($1)", {std::int64_t{1}});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find(db->describe()), std::string::npos) << missing.error().message();
  EXPECT_NE(missing.error().message().find("no_such_table"), std::string::npos) << missing.error().message();
}

TEST_P(SqlDatabaseTest, TypedReadersAcceptWhatEitherEngineReturns) {
  auto db = open();
  ASSERT_TRUE(db);
  auto rows = db->query("SELECT CAST($1 AS BIGINT), CAST($2 AS DOUBLE PRECISION), CAST($3 AS TEXT), CAST($4 AS TEXT),"
                        " CAST(NULL AS TEXT)",
                        {std::int64_t{42}, 2.75, std::string("not a number"), std::string("-17")});
  ASSERT_TRUE(rows) << error_text(rows.error());
  ASSERT_EQ(rows->size(), 1u);
  const SqlRow& row = rows->front();
  ASSERT_EQ(row.size(), 5u);
  EXPECT_EQ(sql_integer(row[0]), 42);
  EXPECT_EQ(sql_real(row[0]), 42.0);
  EXPECT_EQ(sql_text(row[0]), "42");
  EXPECT_EQ(sql_real(row[1]), 2.75);
  EXPECT_EQ(sql_integer(row[1]), 2);  // toward zero, as SQLite's CAST
  EXPECT_EQ(sql_text(row[1]), "2.75");
  EXPECT_EQ(sql_text(row[2]), "not a number");
  EXPECT_EQ(sql_real(row[2]), std::nullopt);
  EXPECT_EQ(sql_integer(row[2]), std::nullopt);
  EXPECT_EQ(sql_integer(row[3]), -17);
  EXPECT_EQ(sql_real(row[3]), -17.0);
  EXPECT_EQ(sql_text(row[4]), std::nullopt);
  EXPECT_EQ(sql_integer(row[4]), std::nullopt);
}

TEST_P(SqlDatabaseTest, TheAutoIncrementIdColumnOfTheDialectNumbersRows) {
  auto db = open();
  ASSERT_TRUE(db);
  const std::string create =
      "CREATE TABLE numbered (id " + std::string(auto_increment_id_column(db->dialect())) + ", s TEXT NOT NULL)";
  ASSERT_TRUE(db->execute(create, {}));
  for (const char* s : {"a", "b"}) ASSERT_TRUE(db->execute("INSERT INTO numbered (s) VALUES ($1)", {std::string(s)}));
  auto rows = db->query("SELECT id FROM numbered ORDER BY s", {});
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 2u);
  const auto first = sql_integer((*rows)[0][0]);
  const auto second = sql_integer((*rows)[1][0]);
  ASSERT_TRUE(first && second);
  EXPECT_GT(*second, *first);
}

TEST_P(SqlDatabaseTest, TransactionsThatLockATableRunOneAfterTheOther) {
  auto first = open();
  auto second = open();
  ASSERT_TRUE(first && second);
  ASSERT_TRUE(first->execute("CREATE TABLE guarded (n BIGINT)", {}));
  ASSERT_TRUE(first->begin());
  ASSERT_TRUE(first->lock_table("guarded"));
  std::atomic<bool> first_committed = false;
  std::atomic<bool> second_saw_commit = false;
  std::thread waiter([&] {
    // SQLite waits in begin() (BEGIN IMMEDIATE), PostgreSQL in lock_table().
    auto begun = second->begin();
    auto locked = begun ? second->lock_table("guarded") : begun;
    second_saw_commit = first_committed.load();
    EXPECT_TRUE(locked) << (locked ? "" : error_text(locked.error()));
    if (locked) {
      EXPECT_TRUE(second->commit());
    }
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  first_committed = true;
  ASSERT_TRUE(first->commit());
  waiter.join();
  EXPECT_TRUE(second_saw_commit);
  EXPECT_FALSE(first->lock_table("guarded; DROP TABLE guarded"));
}

INSTANTIATE_TEST_SUITE_P(Engines, SqlDatabaseTest, ::testing::Values(Engine::sqlite, Engine::postgres),
                         [](const auto& param_info) {
                           return param_info.param == Engine::sqlite ? "sqlite" : "postgres";
                         });

// PostgreSQL only: a connection the server dropped is reset before the next statement, and a
// transaction it interrupted fails as a whole.
class PostgresReconnectTest : public SqlDatabaseTest {};

TEST_P(PostgresReconnectTest, ADroppedConnectionIsResetBeforeTheNextStatement) {
  auto db = open();
  auto admin_db = open();
  ASSERT_TRUE(db && admin_db);
  ASSERT_TRUE(db->execute("CREATE TABLE t (n BIGINT)", {}));
  const auto terminate = [&] {
    const std::int64_t pid = integer(*db, "SELECT pg_backend_pid()");
    ASSERT_GT(pid, 0);
    ASSERT_TRUE(admin_db->query("SELECT pg_terminate_backend(CAST($1 AS INTEGER))", {pid}));
    // The backend ends a moment later; wait so that the next statement surely meets a closed connection.
    for (int i = 0; i < 100; ++i) {
      if (integer(*admin_db, "SELECT COUNT(*) FROM pg_stat_activity WHERE pid = $1", {pid}) == 0) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    FAIL() << "backend " << pid << " did not end";
  };

  terminate();
  (void)db->query("SELECT 1", {});  // may fail: this is where the client learns of the drop
  EXPECT_EQ(integer(*db, "SELECT 1"), 1);

  ASSERT_TRUE(db->begin());
  ASSERT_TRUE(db->execute("INSERT INTO t (n) VALUES ($1)", {std::int64_t{1}}));
  terminate();
  (void)db->execute("INSERT INTO t (n) VALUES ($1)", {std::int64_t{2}});
  EXPECT_FALSE(db->execute("INSERT INTO t (n) VALUES ($1)", {std::int64_t{3}}));  // not half a transaction
  EXPECT_FALSE(db->commit());
  db->rollback();
  EXPECT_EQ(integer(*db, "SELECT COUNT(*) FROM t"), 0);
}

INSTANTIATE_TEST_SUITE_P(Engines, PostgresReconnectTest, ::testing::Values(Engine::postgres),
                         [](const auto&) { return std::string("postgres"); });

TEST(SqliteDatabase, OpenOptionsSetThePragmas) {
  const fs::path dir = fs::temp_directory_path() / ("ecocompute_sql_test_pragmas_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const auto pragma = [](SqlDatabase& db, const char* name) {
    auto rows = db.query(std::string("PRAGMA ") + name, {});
    return rows && rows->size() == 1 ? sql_text(rows->front().at(0)).value_or("") : std::string("?");
  };
  {
    const SqliteOptions options{
        .wal_journal = true, .synchronous_full = true, .busy_timeout_ms = 1234, .foreign_keys = false};
    auto db = open_sqlite(dir / "durable.sqlite", options);
    ASSERT_TRUE(db) << error_text(db.error());
    EXPECT_EQ(pragma(**db, "journal_mode"), "wal");
    EXPECT_EQ(pragma(**db, "synchronous"), "2");
    EXPECT_EQ(pragma(**db, "busy_timeout"), "1234");
    EXPECT_EQ(pragma(**db, "foreign_keys"), "0");
  }
  auto plain = open_sqlite(dir / "plain.sqlite");
  ASSERT_TRUE(plain);
  EXPECT_EQ(pragma(**plain, "journal_mode"), "delete");
  EXPECT_EQ(pragma(**plain, "busy_timeout"), "5000");
  EXPECT_EQ(pragma(**plain, "foreign_keys"), "1");
  fs::remove_all(dir);
}

TEST(SqliteDatabase, OnlyDollarNumberParametersAreAccepted) {
  auto db = open_sqlite(":memory:");
  ASSERT_TRUE(db);
  for (const char* sql : {"SELECT ?", "SELECT :name", "SELECT @name", "SELECT ?1"}) {
    auto rows = (*db)->query(sql, {std::int64_t{1}});
    ASSERT_FALSE(rows) << sql;
    EXPECT_NE(rows.error().message().find("is not written $n"), std::string::npos) << rows.error().message();
  }
}

TEST(SqlDatabase, UnreachablePostgresIsAnErrorNamingTheServerWithoutPassword) {
  auto db = open_database("postgresql://user:hunter2@127.0.0.1:1/none?connect_timeout=2");
  ASSERT_FALSE(db);
  EXPECT_EQ(db.error().code(), ErrorCode::unavailable);
  EXPECT_NE(db.error().message().find("postgresql://user:***@127.0.0.1:1/none"), std::string::npos);
  EXPECT_EQ(db.error().message().find("hunter2"), std::string::npos);
}

TEST(SqlDatabase, LocationsChooseTheEngine) {
  EXPECT_TRUE(is_postgres_url("postgresql://host/db"));
  EXPECT_TRUE(is_postgres_url("postgres://host/db"));
  EXPECT_FALSE(is_postgres_url("data/postgresql.sqlite"));
  EXPECT_FALSE(is_postgres_url("sqlite:postgres://x"));
  auto empty = open_database("");
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().code(), ErrorCode::invalid_argument);
  auto unwritable = open_database("/proc/definitely/not/here.sqlite");
  ASSERT_FALSE(unwritable);
  EXPECT_EQ(unwritable.error().code(), ErrorCode::io);
  EXPECT_NE(unwritable.error().message().find("/proc/definitely/not/here.sqlite"), std::string::npos);
}

TEST(SqlDatabase, RedactUrlHidesPasswords) {
  EXPECT_EQ(redact_url("postgresql://u:secret@h:5432/db"), "postgresql://u:***@h:5432/db");
  EXPECT_EQ(redact_url("postgres://h/db?password=secret&sslmode=require"),
            "postgres://h/db?password=***&sslmode=require");
  EXPECT_EQ(redact_url("postgresql://u@h/db"), "postgresql://u@h/db");
}

TEST(SqlValueReaders, ParseTextAsPostgreSqlWritesNumbers) {
  EXPECT_EQ(sql_real(SqlValue{std::string("3584.88")}), 3584.88);
  EXPECT_EQ(sql_real(SqlValue{std::string("1e-300")}), 1e-300);
  EXPECT_TRUE(std::isnan(*sql_real(SqlValue{std::string("NaN")})));
  EXPECT_EQ(sql_real(SqlValue{std::string("-Infinity")}), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(sql_real(SqlValue{std::string("12abc")}), std::nullopt);
  EXPECT_EQ(sql_real(SqlValue{std::string("")}), std::nullopt);
  EXPECT_EQ(sql_integer(SqlValue{std::string("9223372036854775807")}), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(sql_integer(SqlValue{std::string("-3.9")}), -3);
  EXPECT_EQ(sql_integer(SqlValue{1e30}), std::nullopt);  // no int64 holds it
  EXPECT_EQ(sql_integer(SqlValue{std::string("NaN")}), std::nullopt);
  EXPECT_EQ(sql_text(SqlValue{0.1}), "0.1");
  EXPECT_EQ(sql_text(SqlValue{std::int64_t{-5}}), "-5");
}

}  // namespace
}  // namespace ecocompute::data
