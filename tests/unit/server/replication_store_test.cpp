// One test suite for both replication stores: SQLite (always) and PostgreSQL (when
// ECOCOMPUTE_TEST_PG_URL names a server; scripts/start_postgres.sh starts one). Each PostgreSQL test
// works in its own schema, so tests may run in parallel against one database.
#include "server/replication_store.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <thread>

#include "server/replication_sql.hpp"
#include "server_test_support.hpp"
#include "support/postgres_schema.hpp"
#include "util/file_io.hpp"

namespace ecocompute::server {
namespace {

enum class Backend { sqlite, postgres };

NewReplication sample(const std::string& text, std::string arch = "ada", std::string precision = "NF4") {
  NewReplication r;
  r.report_json = text;
  r.report_sha256 = sha256_hex(text);
  r.model_name = "Qwen/Qwen2.5-3B";
  r.params_b = 3.0;
  r.gpu = "RTX 4090";
  r.gpu_arch = std::move(arch);
  r.precision = std::move(precision);
  r.basis = "measured";
  r.energy_per_token_mj = 3584.88;
  r.vs_fp16_energy_pct = 0.7557;
  r.grade = "inside";
  r.grade_reason = "within 2 × resid_std";
  r.grade_json = R"({"grade":"inside"})";
  return r;
}

class ReplicationStoreTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::string safe;
    for (char c : name) safe += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
    if (GetParam() == Backend::sqlite) {
      dir_ = testing::temp_dir("store-" + safe);
      location_ = (dir_ / "replications.sqlite").string();
    } else {
      schema_.create("t");
      location_ = schema_.url();
    }
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }
  std::unique_ptr<ReplicationStore> open() {
    auto store = open_replication_store(location_);
    EXPECT_TRUE(store) << (store ? "" : store.error().describe());
    return store ? std::move(store).value() : nullptr;
  }

  std::filesystem::path dir_;
  ecocompute::testing::PostgresSchema schema_;
  std::string location_;
};

TEST_P(ReplicationStoreTest, InsertsFindsAndListsNewestFirst) {
  auto store = open();
  ASSERT_TRUE(store);
  auto first = store->insert(sample("{\"a\":1}"));
  ASSERT_TRUE(first) << first.error().describe();
  EXPECT_TRUE(first->created);
  auto second = store->insert(sample("{\"a\":2}", "hopper", "Q4_K_M"));
  ASSERT_TRUE(second);
  EXPECT_GT(second->replication.id, first->replication.id);

  auto found = store->find(first->replication.id);
  ASSERT_TRUE(found && *found);
  const Replication& r = **found;
  EXPECT_EQ(r.report_json, "{\"a\":1}");
  EXPECT_EQ(r.model_name, "Qwen/Qwen2.5-3B");
  EXPECT_EQ(r.params_b, 3.0);
  EXPECT_EQ(r.energy_per_token_mj, 3584.88);
  EXPECT_EQ(r.vs_fp16_energy_pct, 0.7557);
  EXPECT_EQ(r.engine, std::nullopt);
  EXPECT_EQ(r.grade, "inside");
  EXPECT_EQ(r.received_at_utc.size(), 20u);  // 2026-11-29T17:02:03Z

  auto all = store->list({});
  ASSERT_TRUE(all);
  ASSERT_EQ(all->size(), 2u);
  EXPECT_EQ((*all)[0].id, second->replication.id);
  ReplicationQuery hopper;
  hopper.gpu_arch = "hopper";
  auto filtered = store->list(hopper);
  ASSERT_TRUE(filtered);
  ASSERT_EQ(filtered->size(), 1u);
  EXPECT_EQ((*filtered)[0].precision, "Q4_K_M");
  EXPECT_EQ(*store->count(hopper), 1);
  EXPECT_EQ(*store->count({}), 2);
  auto none = store->find(999999);
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
}

TEST_P(ReplicationStoreTest, TheSameReportIsStoredOnce) {
  auto store = open();
  ASSERT_TRUE(store);
  auto first = store->insert(sample("{\"same\":true}"));
  auto again = store->insert(sample("{\"same\":true}"));
  ASSERT_TRUE(first && again);
  EXPECT_TRUE(first->created);
  EXPECT_FALSE(again->created);
  EXPECT_EQ(again->replication.id, first->replication.id);
  EXPECT_EQ(*store->count({}), 1);
}

TEST_P(ReplicationStoreTest, SqlInjectionStringsAreStoredAsText) {
  auto store = open();
  ASSERT_TRUE(store);
  const std::string evil = "x'); DROP TABLE replications; --";
  NewReplication r = sample("{\"evil\":1}", evil, "' OR '1'='1");
  r.model_name = "Robert'); DELETE FROM replications WHERE ('1'='1";
  r.grade_reason = "\"; DROP TABLE schema_migrations; --";
  auto stored = store->insert(r);
  ASSERT_TRUE(stored) << stored.error().describe();
  auto back = store->find(stored->replication.id);
  ASSERT_TRUE(back && *back);
  EXPECT_EQ((*back)->gpu_arch, evil);
  EXPECT_EQ((*back)->model_name, r.model_name);
  EXPECT_EQ((*back)->grade_reason, r.grade_reason);
  ReplicationQuery q;
  q.precision = "' OR '1'='1";
  EXPECT_EQ(*store->count(q), 1);
  q.precision = "x' OR 1=1 --";
  EXPECT_EQ(*store->count(q), 0);
  EXPECT_EQ(*store->schema_version(), 1);
}

TEST_P(ReplicationStoreTest, ReopeningKeepsRowsAndDoesNotMigrateTwice) {
  {
    auto store = open();
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->insert(sample("{\"keep\":1}")));
  }
  auto store = open();
  ASSERT_TRUE(store);
  EXPECT_EQ(*store->schema_version(), static_cast<int>(detail::migrations().size()));
  EXPECT_EQ(*store->count({}), 1);
}

TEST_P(ReplicationStoreTest, ConcurrentInsertsAllArrive) {
  auto store = open();
  ASSERT_TRUE(store);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&store, t] {
      for (int i = 0; i < 10; ++i) {
        auto r = store->insert(sample("{\"t\":" + std::to_string(t) + ",\"i\":" + std::to_string(i) + "}"));
        EXPECT_TRUE(r && r->created);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(*store->count({}), 40);  // 4 threads × 10 distinct reports
}

TEST_P(ReplicationStoreTest, BadPageArgumentsAreRefused) {
  auto store = open();
  ASSERT_TRUE(store);
  ReplicationQuery q;
  q.limit = 0;
  auto r = store->list(q);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "limit 0 is outside 1..500");
  q.limit = 10;
  q.offset = -1;
  EXPECT_FALSE(store->list(q));
}

INSTANTIATE_TEST_SUITE_P(Backends, ReplicationStoreTest, ::testing::Values(Backend::sqlite, Backend::postgres),
                         [](const auto& param_info) { return param_info.param == Backend::sqlite ? "sqlite" : "postgres"; });

TEST(ReplicationStore, UnreachablePostgresIsAnErrorNamingTheServerWithoutPassword) {
  auto store = open_replication_store("postgresql://user:hunter2@127.0.0.1:1/none?connect_timeout=2");
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code(), ErrorCode::unavailable);
  EXPECT_NE(store.error().message().find("postgresql://user:***@127.0.0.1:1/none"), std::string::npos);
  EXPECT_EQ(store.error().message().find("hunter2"), std::string::npos);
}

TEST(ReplicationStore, UnwritableSqlitePathIsAnError) {
  auto store = open_replication_store("/proc/definitely/not/here.sqlite");
  ASSERT_FALSE(store);
  EXPECT_EQ(store.error().code(), ErrorCode::io);
}

// The statements are one text for both engines: `$n` outside quotes is a parameter, inside is text.
TEST_P(ReplicationStoreTest, PlaceholdersAreDollarNumbersOutsideQuotes) {
  ASSERT_TRUE(open());  // the schema exists, so the statements below run against it
  auto db = data::open_database(location_);
  ASSERT_TRUE(db) << db.error().describe();
  auto rows = (*db)->query("SELECT '$2', COUNT(*) FROM replications WHERE gpu_arch = $1 OR precision = $1",
                           {std::string("ada")});
  ASSERT_TRUE(rows) << rows.error().describe();
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ(data::sql_text(rows->front().at(0)), "$2");
  EXPECT_EQ(data::sql_integer(rows->front().at(1)), 0);
  for (std::string_view statement : {detail::select_page, detail::count_rows}) {
    const bool with_page = statement == detail::select_page;
    EXPECT_TRUE((*db)->query(statement, detail::query_parameters({}, with_page))) << statement;
  }
}

}  // namespace
}  // namespace ecocompute::server
