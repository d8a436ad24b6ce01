// A PostgreSQL schema of its own for one test, on the server ECOCOMPUTE_TEST_PG_URL names
// (scripts/start_postgres.sh starts one), dropped afterwards; tests may then run in parallel against one
// database. Without the variable the test is skipped: SQLite runs the same cases everywhere.
#pragma once

#include <gtest/gtest.h>
#include <postgresql/libpq-fe.h>
#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <string>

namespace ecocompute::testing {

class PostgresSchema {
 public:
  /// Creates "<prefix><pid>_<test name>"; call from SetUp() (it may GTEST_SKIP()).
  void create(const std::string& prefix) {
    const char* url = std::getenv("ECOCOMPUTE_TEST_PG_URL");
    if (url == nullptr || *url == '\0') GTEST_SKIP() << "ECOCOMPUTE_TEST_PG_URL is not set (scripts/start_postgres.sh)";
    server_url_ = url;
    std::string safe;
    for (char c : std::string(::testing::UnitTest::GetInstance()->current_test_info()->name())) {
      safe += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
    }
    name_ = prefix + std::to_string(::getpid()) + "_" + safe.substr(0, 40);
    run("DROP SCHEMA IF EXISTS " + name_ + " CASCADE; CREATE SCHEMA " + name_);
  }
  ~PostgresSchema() {
    if (!name_.empty()) run("DROP SCHEMA IF EXISTS " + name_ + " CASCADE");
  }

  /// The URL whose connections work in this schema.
  [[nodiscard]] std::string url() const {
    return server_url_ + (server_url_.find('?') == std::string::npos ? "?" : "&") + "options=-csearch_path%3D" + name_;
  }
  [[nodiscard]] const std::string& name() const { return name_; }

 private:
  // Runs administrative SQL on the server, outside the schema.
  void run(const std::string& sql) const {
    PGconn* c = PQconnectdb(server_url_.c_str());
    EXPECT_EQ(PQstatus(c), CONNECTION_OK) << PQerrorMessage(c);
    PQsetNoticeProcessor(c, [](void*, const char*) {}, nullptr);
    PGresult* r = PQexec(c, sql.c_str());
    EXPECT_EQ(PQresultStatus(r), PGRES_COMMAND_OK) << PQerrorMessage(c);
    PQclear(r);
    PQfinish(c);
  }

  std::string server_url_;
  std::string name_;
};

}  // namespace ecocompute::testing
