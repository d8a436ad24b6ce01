// Rows carry their batch size and, beyond the baseline, their context: stored, read back, distinct per
// batch and context in one run, and a store made before the columns existed is upgraded with every old
// row at batch 1 and the baseline context.
#include <gtest/gtest.h>

#include <filesystem>

#include "data/dataset_import.hpp"
#include "data/dataset_store.hpp"
#include "data/sql_database.hpp"
#include "report/energy_report.hpp"

namespace ecocompute::data {
namespace {

namespace fs = std::filesystem;

report::EnergyReport golden_q8() {
  auto r = report::read_energy_report(fs::path(ECOCOMPUTE_SOURCE_DIR) / "tests/golden/energy/energy-Q8_0.json");
  EXPECT_TRUE(r) << r.error().describe();
  return r.value_or(report::EnergyReport{});
}

RowQuery everything() {
  RowQuery q;
  q.measured_only = false;
  return q;
}

TEST(DatasetStoreBatch, OneRunsBatchLevelsAreDistinctRowsWithTheirBatch) {
  auto store = DatasetStore::open_in_memory();
  ASSERT_TRUE(store) << store.error().describe();
  report::EnergyReport b1 = golden_q8();
  report::EnergyReport b16 = b1;
  b16.workload.batch_size = 16;
  for (const report::EnergyReport* r : {&b1, &b16}) {
    auto batch = import_energy_report(*r, "run");
    ASSERT_TRUE(batch) << batch.error().describe();
    auto summary = store->import(*batch);
    ASSERT_TRUE(summary) << summary.error().describe();
    EXPECT_EQ(summary->rows_added, 1);  // the same run's timestamp, but another batch: not a duplicate
  }
  auto rows = store->rows(everything());
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ(rows->at(0).batch_size + rows->at(1).batch_size, 17);
}

TEST(DatasetStoreBatch, ALongContextRunIsStoredWithItsContextAndListedForAnswers) {
  auto store = DatasetStore::open_in_memory();
  ASSERT_TRUE(store) << store.error().describe();
  report::EnergyReport short_prompt = golden_q8();
  short_prompt.workload.prompt_tokens = 2048;  // the baseline itself: no context recorded
  report::EnergyReport long_prompt = golden_q8();
  long_prompt.workload.prompt_tokens = 4096;
  // Both runs in one import, without their perplexity pair and note, so that what an answer reads by
  // key (rows with a quality pair or a note, and long-context rows) can hold a row for its context alone.
  ImportBatch both;
  both.source = "run";
  for (const report::EnergyReport* r : {&short_prompt, &long_prompt}) {
    auto batch = import_energy_report(*r, "run");
    ASSERT_TRUE(batch) << batch.error().describe();
    both.sessions = batch->sessions;
    for (DataRow row : batch->rows) {
      row.perplexity.reset();
      row.fp16_perplexity.reset();
      row.note.clear();
      both.rows.push_back(row);
    }
  }
  auto summary = store->import(both);
  ASSERT_TRUE(summary) << summary.error().describe();
  EXPECT_EQ(summary->rows_added, 2);  // the same run's timestamp, another context: not a duplicate
  auto rows = store->rows(everything());
  ASSERT_TRUE(rows);
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ(rows->at(0).context_tokens + rows->at(1).context_tokens, 4096);
  const DataRow& long_context = rows->at(0).context_tokens > 0 ? rows->at(0) : rows->at(1);
  EXPECT_EQ(long_context.context_tokens, 4096);
  EXPECT_NE(long_context.row_key.find("|ctx4096"), std::string::npos) << long_context.row_key;
  // A context beyond any the store takes is refused, naming the field.
  report::EnergyReport absurd = golden_q8();
  absurd.workload.prompt_tokens = 1LL << 40;
  auto refused = import_energy_report(absurd, "run");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("workload.prompt_tokens"), std::string::npos) << refused.error().message();
}

TEST(DatasetStoreBatch, AStoreWithoutTheColumnIsUpgradedWithItsRowsAtBatchOne) {
  const fs::path path = fs::temp_directory_path() / ("old_store_" + std::to_string(::getpid()) + ".sqlite");
  fs::remove(path);
  {
    auto db = open_database(path.string());
    ASSERT_TRUE(db) << db.error().describe();
    // The schema as it was before rows carried a batch size.
    for (const char* statement :
         {"CREATE TABLE sessions (id TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, label TEXT NOT NULL, gpu TEXT NOT NULL,"
          " gpu_arch TEXT NOT NULL, engine TEXT NOT NULL, engine_version TEXT NOT NULL, software TEXT NOT NULL,"
          " date TEXT NOT NULL, provenance TEXT NOT NULL)",
          "CREATE TABLE measurements (session_id TEXT NOT NULL REFERENCES sessions(id), row_key TEXT NOT NULL,"
          " gpu TEXT NOT NULL, gpu_arch TEXT NOT NULL, engine TEXT NOT NULL, model TEXT NOT NULL,"
          " params_b DOUBLE PRECISION NOT NULL, precision TEXT NOT NULL, basis TEXT NOT NULL, weights TEXT NOT NULL,"
          " energy_per_token_mj DOUBLE PRECISION NOT NULL, fp16_energy_per_token_mj DOUBLE PRECISION NOT NULL,"
          " n_trials BIGINT NOT NULL, delta_sd_pct DOUBLE PRECISION, delta_ci95_low_pct DOUBLE PRECISION,"
          " delta_ci95_high_pct DOUBLE PRECISION, stored_delta_pct DOUBLE PRECISION, avg_power_w DOUBLE PRECISION,"
          " throughput_tokens_per_s DOUBLE PRECISION, perplexity DOUBLE PRECISION, fp16_perplexity DOUBLE PRECISION,"
          " kld DOUBLE PRECISION, inconsistent BIGINT NOT NULL, note TEXT NOT NULL, PRIMARY KEY (session_id, row_key))",
          "INSERT INTO sessions VALUES ('s1', 'f', 'old session', 'NVIDIA H200', 'hopper', 'llama.cpp', 'v0', 'sw',"
          " '2026-11-01', 'test')",
          "INSERT INTO measurements VALUES ('s1', 'k', 'NVIDIA H200', 'hopper', 'llama.cpp', 'm', 1.0, 'Q8_0',"
          " 'measured', 'synthetic', 60.0, 100.0, 3, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 0, '')"}) {
      ASSERT_TRUE((*db)->execute(statement, {})) << statement;
    }
  }
  {
    auto store = DatasetStore::open(path.string());
    ASSERT_TRUE(store) << store.error().describe();
    auto rows = store->rows(everything());
    ASSERT_TRUE(rows) << rows.error().describe();
    ASSERT_EQ(rows->size(), 1u);
    EXPECT_EQ(rows->front().batch_size, 1);
    EXPECT_EQ(rows->front().context_tokens, 0);
  }
  auto again = DatasetStore::open(path.string());  // the upgrade happens once
  ASSERT_TRUE(again) << again.error().describe();
  fs::remove(path);
}

}  // namespace
}  // namespace ecocompute::data
