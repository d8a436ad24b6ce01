// The published quality rows in the dataset store, on a real SQLite file (and on PostgreSQL when
// ECOCOMPUTE_TEST_PG_URL is set): every row back with its source, a re-import adds nothing, a bad batch
// writes nothing, the precision filter ignores case, and the shipped evidence carries the rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "data/dataset_store.hpp"
#include "data/published_quality.hpp"
#include "support/postgres_schema.hpp"
#include "support/scratch_dir.hpp"

namespace ecocompute::data {
namespace {

namespace fs = std::filesystem;

const fs::path kFetchedLlamaSource = fs::path(ECOCOMPUTE_SOURCE_DIR) / "third_party" / "llama.cpp";

QualityBatch readme_batch() {
  auto batch = read_llama_cpp_quality(kFetchedLlamaSource);
  EXPECT_TRUE(batch) << batch.error().message();
  return batch ? *batch : QualityBatch{};
}

// Imports, re-imports, reopens and filters: the same checks on any store.
void check_round_trip(const std::string& location) {
  const QualityBatch batch = readme_batch();
  {
    auto store = DatasetStore::open(location);
    ASSERT_TRUE(store) << store.error().message();
    auto first = store->import_quality(batch);
    ASSERT_TRUE(first) << first.error().message();
    EXPECT_EQ(first->rows_added, 67);
    EXPECT_EQ(first->rows_already_present, 0);
    auto again = store->import_quality(batch);
    ASSERT_TRUE(again) << again.error().message();
    EXPECT_EQ(again->rows_added, 0);
    EXPECT_EQ(again->rows_already_present, 67);
  }
  auto reopened = DatasetStore::open(location);
  ASSERT_TRUE(reopened) << reopened.error().message();
  auto all = reopened->quality_rows();
  ASSERT_TRUE(all) << all.error().message();
  ASSERT_EQ(all->size(), 67u);
  auto q4_k_m = reopened->quality_rows(std::string("q4_k_m"));
  ASSERT_TRUE(q4_k_m) << q4_k_m.error().message();
  EXPECT_EQ(q4_k_m->size(), 5u);  // 8B with and without imatrix, the comparison's 7B and 8B, 70B
  for (const PublishedQualityRow& r : *all) {
    if (r.model != "LLaMA 3 8B" || r.precision != "Q4_0" || r.imatrix != "none") continue;
    const PublishedQualityRow& original = *std::find_if(batch.rows.begin(), batch.rows.end(), [](const auto& o) {
      return o.model == "LLaMA 3 8B" && o.precision == "Q4_0" && o.imatrix == "none";
    });
    EXPECT_EQ(Json(r), Json(original));  // every field and figure, uncertainties included
    return;
  }
  ADD_FAILURE() << "the LLaMA 3 8B Q4_0 row did not come back";
}

class QualityStoreFile : public ::ecocompute::testing::ScratchDirTest {};

TEST_F(QualityStoreFile, RowsComeBackWithTheirSourceAndReimportAddsNothing) {
  check_round_trip((dir_ / "quality.sqlite").string());
}

TEST_F(QualityStoreFile, ABadRowWritesNothing) {
  const fs::path file = dir_ / "quality.sqlite";
  QualityBatch batch = readme_batch();
  ASSERT_GT(batch.rows.size(), 10u);
  batch.rows[10].source_commit.clear();  // a row that cannot say where it came from
  auto store = DatasetStore::open(file.string());
  ASSERT_TRUE(store) << store.error().message();
  auto summary = store->import_quality(batch);
  ASSERT_FALSE(summary);
  EXPECT_NE(summary.error().message().find("line " + std::to_string(batch.rows[10].line)), std::string::npos)
      << summary.error().message();
  auto rows = store->quality_rows();
  ASSERT_TRUE(rows);
  EXPECT_TRUE(rows->empty());
}

TEST(QualityStoreShipped, TheShippedEvidenceReadsTheFetchedSource) {
  ::setenv("ECOCOMPUTE_LLAMA_SOURCE", kFetchedLlamaSource.c_str(), 1);
  auto store = open_published_store();
  ::unsetenv("ECOCOMPUTE_LLAMA_SOURCE");
  ASSERT_TRUE(store) << store.error().message();
  auto rows = store->quality_rows(std::string("Q6_K"));
  ASSERT_TRUE(rows) << rows.error().message();
  EXPECT_EQ(rows->size(), 4u);  // 8B scoreboard, the comparison's 7B and 8B, 70B
  ::setenv("ECOCOMPUTE_LLAMA_SOURCE", "/nonexistent/llama.cpp", 1);
  auto without = open_published_store();
  ::unsetenv("ECOCOMPUTE_LLAMA_SOURCE");
  ASSERT_TRUE(without) << without.error().message();
  EXPECT_TRUE(without->quality_rows()->empty());
}

class QualityStorePostgres : public ::testing::Test {
 protected:
  void SetUp() override { schema_.create("ecq_"); }
  ::ecocompute::testing::PostgresSchema schema_;
};

TEST_F(QualityStorePostgres, RowsComeBackWithTheirSourceAndReimportAddsNothing) { check_round_trip(schema_.url()); }

}  // namespace
}  // namespace ecocompute::data
