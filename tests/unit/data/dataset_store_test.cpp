// Tests of the dataset readers and the store: recomputed ΔE, replicate statistics, the consistency
// flag, sessions kept apart, and bad input rejected with nothing half-imported; the store on SQLite
// and (when ECOCOMPUTE_TEST_PG_URL is set) on PostgreSQL.
#include "data/dataset_store.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>

#include "data/curve_set.hpp"
#include "data/dataset_import.hpp"
#include "support/postgres_schema.hpp"
#include "support/data_paths.hpp"

namespace ecocompute::data {
namespace {

namespace fs = std::filesystem;
using ::ecocompute::testing::kPublishedData;

fs::path temp_dir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / ("ecocompute_data_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

RowQuery query_arch_precision(std::string arch, std::string precision) {
  RowQuery q;
  q.gpu_arch = std::move(arch);
  q.precision = std::move(precision);
  return q;
}
RowQuery query_session(std::string id) {
  RowQuery q;
  q.session_id = std::move(id);
  return q;
}
RowQuery query_everything() {
  RowQuery q;
  q.measured_only = false;
  return q;
}

void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

// The July session with one row given a perplexity pair, one a perplexity alone, one a note with the
// marker inside other text: what RowQuery::quality_or_note must tell apart.
ImportBatch annotated_july() {
  auto batch = read_published_csv(kPublishedData / "rtx4090_2026-07-24.csv");
  EXPECT_TRUE(batch);
  batch->rows.at(0).perplexity = 9.5;
  batch->rows.at(0).fp16_perplexity = 9.0;
  batch->rows.at(1).perplexity = 9.5;  // no F16 pair: no quality figure
  batch->rows.at(2).note = "3 of 5 trials: throttle marker here; kept";
  return *batch;
}

// Only the annotated rows come back, on any store: the pair and the marked note, nothing else.
void expect_only_annotated_rows(const DatasetStore& store) {
  RowQuery q;
  q.quality_or_note = "throttle marker";
  auto rows = store.rows(q);
  ASSERT_TRUE(rows) << rows.error().describe();
  const ImportBatch july = annotated_july();
  ASSERT_EQ(rows->size(), 2u);
  std::set<std::string> keys{(*rows)[0].row_key, (*rows)[1].row_key};
  EXPECT_EQ(keys, (std::set<std::string>{july.rows[0].row_key, july.rows[2].row_key}));
  q.quality_or_note = "no such text";
  ASSERT_EQ(store.rows(q)->size(), 1u);  // the pair alone
  q.quality_or_note.reset();
  EXPECT_EQ(store.rows(q)->size(), july.rows.size());
}

const DataRow* find_row(const std::vector<DataRow>& rows, const std::string& model, const std::string& precision) {
  for (const DataRow& r : rows) {
    if (r.model == model && r.precision == precision) return &r;
  }
  return nullptr;
}

TEST(PublishedImport, JulyDeltaIsRecomputedFromEnergies) {
  auto batch = read_published_csv(kPublishedData / "rtx4090_2026-07-24.csv");
  ASSERT_TRUE(batch) << batch.error().describe();
  const DataRow* row = find_row(batch->rows, "Qwen/Qwen2.5-3B", "NF4");
  ASSERT_NE(row, nullptr);
  // (3584.88 − 3557.99) / 3557.99 × 100 = 0.7558 %, not the stored same-run column's 10.1 %.
  EXPECT_NEAR(row->delta_pct(), 0.7558, 1e-4);
  EXPECT_EQ(std::round(row->delta_pct() * 10) / 10, 0.8);
  ASSERT_TRUE(row->stored_delta_pct);
  EXPECT_DOUBLE_EQ(*row->stored_delta_pct, 10.1);
  // 0.5B INT8: (5302.51 − 1550.92)/1550.92 = 241.89 % against a stored 255.8 %: 13.9 points apart.
  const DataRow* int8 = find_row(batch->rows, "Qwen/Qwen2-0.5B", "INT8");
  ASSERT_NE(int8, nullptr);
  EXPECT_NEAR(int8->delta_pct(), 241.894, 1e-3);
  EXPECT_EQ(batch->rows.size(), 10u);  // 5 models × (NF4, INT8)
}

TEST(PublishedImport, ReplicateSummaryOfHalfBillionInt8) {
  auto batch = read_published_csv(kPublishedData / "rtx4090_2026-08-20_int8_replicates.csv");
  ASSERT_TRUE(batch) << batch.error().describe();
  std::vector<DataRow> half;
  for (const DataRow& r : batch->rows) {
    if (r.params_b == 0.5) half.push_back(r);
  }
  ASSERT_EQ(half.size(), 3u);
  const auto points = summarize_points(half);
  ASSERT_EQ(points.size(), 1u);
  // ΔE of the three replicates: 595.054, 578.262, 570.562 → mean 581.293; SD (ddof 1) 12.524;
  // CV = 12.524 / 581.293 = 2.15 %. The published summary says 581.29, 12.52, 2.15.
  EXPECT_EQ(points[0].n, 3);
  EXPECT_NEAR(points[0].delta_pct, 581.29, 0.005);
  ASSERT_TRUE(points[0].se_pct);
  const double sd = *points[0].se_pct * std::sqrt(3.0);
  EXPECT_NEAR(sd, 12.52, 0.005);
  EXPECT_NEAR(sd / points[0].delta_pct * 100, 2.15, 0.005);
}

TEST(PublishedImport, PairedQualityRowsAreConsistentWithinOnePercent) {
  auto batch = read_published_csv(kPublishedData / "rtx4090_2026-08-19_paired_quality.csv");
  ASSERT_TRUE(batch) << batch.error().describe();
  ASSERT_EQ(batch->rows.size(), 10u);
  for (const DataRow& r : batch->rows) {
    auto gap = r.consistency_gap_pct();
    ASSERT_TRUE(gap) << r.row_key;
    // e.g. 0.5B NF4: 92.7 W / 50.7 tok/s = 1828.4 mJ vs 1827.749 mJ → 0.04 %; the largest gap is 0.64 %.
    EXPECT_LT(*gap, 1.0) << r.row_key;
    EXPECT_FALSE(r.is_inconsistent());
  }
  const DataRow* nf4 = find_row(batch->rows, "Qwen/Qwen2.5-3B", "NF4");
  ASSERT_NE(nf4, nullptr);
  // Perplexity 5.8006 vs 4.5472: +27.56 %.
  EXPECT_NEAR(*nf4->delta_perplexity_pct(), 27.564, 1e-3);
}

TEST(PublishedImport, ConsistencyFlagAboveTwoPercent) {
  DataRow r;
  r.energy_per_token_mj = 1000;
  r.avg_power_w = 100;
  r.throughput_tokens_per_s = 97;  // 100/97 J = 1030.9 mJ: 3.09 % off
  EXPECT_NEAR(*r.consistency_gap_pct(), 3.0928, 1e-4);
  EXPECT_TRUE(r.is_inconsistent());
  r.throughput_tokens_per_s = 99;  // 1010.1 mJ: 1.01 % off
  EXPECT_FALSE(r.is_inconsistent());
}

TEST(PublishedImport, DirectoryKeepsSessionsApart) {
  auto batch = read_published_dir(kPublishedData);
  ASSERT_TRUE(batch) << batch.error().describe();
  // July, 08-19, 08-20, and one per GPU of the main dataset (RTX 5090, T4, A800, RTX 4090D).
  EXPECT_EQ(batch->sessions.size(), 7u);
  // 10 + 10 + 15 + 18 rows; the repeats summary, site fit input and curves are not imported.
  EXPECT_EQ(batch->rows.size(), 53u);
}

TEST(DatasetStore, ImportsOnceAndQueries) {
  auto store = DatasetStore::open_in_memory();
  ASSERT_TRUE(store);
  auto batch = read_published_dir(kPublishedData);
  ASSERT_TRUE(batch);
  auto first = store->import(*batch);
  ASSERT_TRUE(first) << first.error().describe();
  EXPECT_EQ(first->rows_added, 53);
  EXPECT_EQ(first->sessions_added, 7);
  EXPECT_EQ(first->rows_flagged, 0);
  auto again = store->import(*batch);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->rows_added, 0);
  EXPECT_EQ(again->rows_already_present, 53);
  auto ada_nf4 = store->rows(query_arch_precision("ada", "NF4"));
  ASSERT_TRUE(ada_nf4);
  EXPECT_EQ(ada_nf4->size(), 14u);  // July 5 + 08-19 5 + RTX 4090D 4
  auto session = store->find_session("rtx4090_2026-07-24");
  ASSERT_TRUE(session);
  EXPECT_EQ(session->date, "2026-07-24");
  EXPECT_NE(session->software.find("torch 2.4.1+cu121"), std::string::npos);
  auto july = store->rows(query_session(session->id));
  ASSERT_TRUE(july);
  const DataRow* row = find_row(*july, "Qwen/Qwen2.5-3B", "NF4");
  ASSERT_NE(row, nullptr);
  EXPECT_NEAR(row->delta_pct(), 0.7558, 1e-4);  // recomputed after the round trip too
}

TEST(DatasetStore, ASessionIsReadByItsExactIdOnly) {
  auto store = DatasetStore::open_in_memory();
  ASSERT_TRUE(store);
  auto batch = read_published_dir(kPublishedData);
  ASSERT_TRUE(batch);
  ASSERT_TRUE(store->import(*batch));
  auto listed = store->sessions();
  ASSERT_TRUE(listed);
  ASSERT_FALSE(listed->empty());
  for (const Session& s : *listed) {
    auto read = store->session_by_id(s.id);
    ASSERT_TRUE(read) << read.error().describe();
    ASSERT_TRUE(read->has_value()) << s.id;
    EXPECT_EQ((*read)->label, s.label);
    EXPECT_EQ((*read)->gpu, s.gpu);
    EXPECT_EQ((*read)->date, s.date);
  }
  // Not a prefix, not a label (find_session takes both): an answer names sessions by id.
  const Session& first = listed->front();
  auto prefix = store->session_by_id(first.id.substr(0, first.id.size() - 1));
  ASSERT_TRUE(prefix);
  EXPECT_FALSE(prefix->has_value());
  if (first.label != first.id) {
    auto by_label = store->session_by_id(first.label);
    ASSERT_TRUE(by_label);
    EXPECT_FALSE(by_label->has_value());
  }
  auto unknown = store->session_by_id("no-such-session");
  ASSERT_TRUE(unknown);
  EXPECT_FALSE(unknown->has_value());
}

TEST(DatasetStore, FailedImportLeavesNothing) {
  auto store = DatasetStore::open_in_memory();
  ASSERT_TRUE(store);
  auto batch = read_published_csv(kPublishedData / "rtx4090_2026-07-24.csv");
  ASSERT_TRUE(batch);
  batch->rows.back().params_b = -3;  // the last row is bad: none of the others may be written
  auto result = store->import(*batch);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message().find("params_b"), std::string::npos);
  EXPECT_TRUE(store->rows(query_everything())->empty());
  EXPECT_TRUE(store->sessions()->empty());
  batch->rows.back().params_b = 7;
  batch->rows.back().energy_per_token_mj = std::nan("");
  EXPECT_FALSE(store->import(*batch));
  EXPECT_TRUE(store->rows(query_everything())->empty());
}

TEST(DatasetStore, PersistsInAFile) {
  const fs::path dir = temp_dir("persist");
  {
    auto store = DatasetStore::open(dir / "store.sqlite");
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->import(*read_published_csv(kPublishedData / "rtx4090_2026-07-24.csv")));
  }
  auto reopened = DatasetStore::open(dir / "store.sqlite");
  ASSERT_TRUE(reopened);
  EXPECT_EQ(reopened->rows()->size(), 10u);
  fs::remove_all(dir);
}

TEST(PublishedImport, BadFilesAreClearErrors) {
  const fs::path dir = temp_dir("bad");
  const std::string header =
      "gpu,gpu_arch,model,params_b,fp16_mj_per_token,nf4_mj_per_token,int8_mj_per_token,same_run_delta_nf4_pct,"
      "same_run_delta_int8_pct,torch,transformers,bitsandbytes\n";
  write(dir / "ragged.csv", header + "RTX 4090,ada,M,0.5,1550.92,2103.59\n");
  write(dir / "nan.csv", header + "RTX 4090,ada,M,0.5,nan,2103.59,5302.51,36.5,255.8,t,t,b\n");
  write(dir / "negative.csv", header + "RTX 4090,ada,M,-0.5,1550.92,2103.59,5302.51,36.5,255.8,t,t,b\n");
  write(dir / "arch.csv", header + "RTX 4090,volta2,M,0.5,1550.92,2103.59,5302.51,36.5,255.8,t,t,b\n");
  write(dir / "unknown.csv", "a,b\n1,2\n");
  write(dir / "quote.csv", header + "\"RTX 4090,ada\n");
  const std::vector<std::pair<std::string, std::string>> cases{
      {"ragged.csv", "ragged.csv:2: 6 fields, the header has 12"},
      {"nan.csv", "nan.csv:2: column 'fp16_mj_per_token': 'nan' is not a finite number"},
      {"negative.csv", "negative.csv:2: params_b must be > 0"},
      {"arch.csv", "unknown GPU architecture 'volta2'"},
      {"unknown.csv", "unrecognised CSV columns"},
      {"quote.csv", "unterminated quote"}};
  for (const auto& [file, message] : cases) {
    auto r = read_published_csv(dir / file);
    ASSERT_FALSE(r) << file;
    EXPECT_EQ(r.error().code(), ErrorCode::invalid_input) << file;
    EXPECT_NE(r.error().message().find(message), std::string::npos) << r.error().message();
  }
  // A folder with one bad file yields an error, not the good files' rows.
  fs::copy_file(kPublishedData / "rtx4090_2026-07-24.csv", dir / "a_good.csv");
  EXPECT_FALSE(read_published_dir(dir));
  fs::remove_all(dir);
}

Json energy_report() {
  return Json::parse(R"({
    "schema_version": "ecocompute-energy/1.2",
    "timestamp_utc": "2026-11-29T12:00:00Z",
    "measurement_source": "direct-nvml",
    "system_under_test": {"gpu": "NVIDIA H200", "gpu_arch": "hopper"},
    "workload": {"model_name": "llama-3-8b-synthetic", "params_b": 8.03, "precision": "Q4_K_M", "weights": "synthetic"},
    "results": {"energy_per_token_mj": 2400.0, "fp16_energy_per_token_mj": 3600.0, "vs_fp16_energy_pct": -33.3,
                "basis": "measured", "avg_power_watts": 600.0, "throughput_tokens_per_s": 250.0},
    "statistics": {"n_trials": 5, "vs_fp16_energy_pct": {"mean": -33.3, "sd": 1.2, "ci95_low": -34.8, "ci95_high": -31.8, "n_pairs": 5}},
    "engine": {"name": "llama.cpp", "version": "b1", "commit": "80fb11a"},
    "environment": {"fingerprint": "abcdef0123456789abcdef"},
    "quality": {"value": 7.0, "fp16_value": 6.5, "kld": 0.01}
  })");
}

TEST(ReportImport, ReadsSchemaOneTwo) {
  auto batch = parse_energy_report(energy_report(), "energy.json");
  ASSERT_TRUE(batch) << batch.error().describe();
  ASSERT_EQ(batch->rows.size(), 1u);
  const DataRow& r = batch->rows.front();
  EXPECT_EQ(r.engine, "llama.cpp");
  EXPECT_EQ(r.precision, "Q4_K_M");
  EXPECT_EQ(r.gpu_arch, "hopper");
  EXPECT_EQ(r.n_trials, 5);
  EXPECT_NEAR(r.delta_pct(), -33.3333, 1e-4);  // (2400 − 3600)/3600
  EXPECT_FALSE(r.perplexity);                   // synthetic weights: quality is meaningless
  // 600 W / 250 tok/s = 2400 mJ/token: consistent.
  EXPECT_NEAR(*r.consistency_gap_pct(), 0.0, 1e-9);
  EXPECT_EQ(batch->sessions.front().fingerprint, "abcdef0123456789abcdef");
  EXPECT_EQ(batch->sessions.front().id, "abcdef0123456789");
}

TEST(ReportImport, OneOneReportGetsThePublishedEngine) {
  Json j = energy_report();
  j["schema_version"] = "ecocompute-energy/1.1";
  j.erase("engine");
  j.erase("environment");
  j["workload"]["precision"] = "NF4";
  j["workload"].erase("weights");
  auto batch = parse_energy_report(j, "old.json");
  ASSERT_TRUE(batch);
  EXPECT_EQ(batch->rows.front().engine, "transformers+bitsandbytes");
  ASSERT_TRUE(batch->rows.front().perplexity);
}

TEST(ReportImport, BadReportsAreClearErrors) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"/schema_version", "schema_version: '' is not ecocompute-energy/1.0, 1.1 or 1.2"},
      {"/workload/params_b", "workload.params_b is missing"},
      {"/system_under_test/gpu_arch", "system_under_test.gpu_arch"},
      {"/results/energy_per_token_mj", "results.energy_per_token_mj is missing"},
  };
  for (const auto& [pointer, message] : cases) {
    Json j = energy_report();
    j.at(Json::json_pointer(pointer.substr(0, pointer.rfind('/')).empty() ? "" : pointer.substr(0, pointer.rfind('/'))))
        .erase(pointer.substr(pointer.rfind('/') + 1));
    auto r = parse_energy_report(j, "r.json");
    ASSERT_FALSE(r) << pointer;
    EXPECT_NE(r.error().message().find(message), std::string::npos) << r.error().message();
  }
  Json negative = energy_report();
  negative["workload"]["params_b"] = -1;
  EXPECT_FALSE(parse_energy_report(negative, "r.json"));
  Json text = energy_report();
  text["results"]["energy_per_token_mj"] = "many";
  EXPECT_FALSE(parse_energy_report(text, "r.json"));
  const fs::path dir = temp_dir("report");
  write(dir / "broken.json", "{\"schema_version\": ");
  auto broken = read_import_source(dir / "broken.json");
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().message().find("broken.json is not valid JSON"), std::string::npos);
  fs::remove_all(dir);
}

TEST(ReportImport, NeverStoresANonMeasurement) {
  // The published example of the measured format: basis "measured", but its values are hand-written.
  const fs::path illustrative = fs::path(ECOCOMPUTE_SOURCE_DIR) / "tests/unit/data/fixtures/energy.measured.illustrative.json";
  auto refused = read_import_source(illustrative);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code(), ErrorCode::invalid_input);
  EXPECT_NE(refused.error().message().find("not a measurement: the report marks its values as not a real measurement"),
            std::string::npos)
      << refused.error().message();
  // Each way a report can fail to be a measurement is named; none yields a row to store or fit.
  const std::vector<std::pair<std::function<void(Json&)>, std::string>> cases{
      {[](Json& j) { j.erase("measurement_source"); }, "measurement_source is absent"},
      {[](Json& j) { j["measurement_source"] = "none"; }, "measurement_source is \"none\""},
      {[](Json& j) { j["results"]["basis"] = "interpolated"; }, "results.basis is \"interpolated\""},
      {[](Json& j) { j["results"]["note"] = "ILLUSTRATIVE synthetic values"; }, "results.note says"},
      {[](Json& j) { j["system_under_test"]["gpu_arch"] = "none"; }, "a CPU run"},
      {[](Json& j) { j["system_under_test"]["accelerator_count"] = 2; }, "a run split over 2 GPUs"},
  };
  for (const auto& [change, expected] : cases) {
    Json j = energy_report();
    change(j);
    auto r = parse_energy_report(j, "r.json");
    ASSERT_FALSE(r) << expected;
    EXPECT_NE(r.error().message().find(expected), std::string::npos) << r.error().message();
  }
  // A stated ΔE its energies contradict is imported from the energies, with a note saying so.
  Json contradicted = energy_report();
  contradicted.erase("statistics");
  contradicted["results"]["vs_fp16_energy_pct"] = -60.0;
  auto noted = parse_energy_report(contradicted, "r.json");
  ASSERT_TRUE(noted) << noted.error().describe();
  ASSERT_EQ(noted->notes.size(), 1u);
  EXPECT_NE(noted->notes.front().find("disagrees with the energies"), std::string::npos) << noted->notes.front();
  EXPECT_NEAR(noted->rows.front().delta_pct(), -33.3333, 1e-4);
}

TEST(DatasetStore, ReadsOnlyTheRowsAnAnswerListsWhenAsked) {
  auto store = DatasetStore::open_in_memory();
  ASSERT_TRUE(store) << store.error().describe();
  ASSERT_TRUE(store->import(annotated_july()));
  expect_only_annotated_rows(*store);
}

// The store on PostgreSQL, the database of a shared deployment: each test in its own schema of the
// server ECOCOMPUTE_TEST_PG_URL names (scripts/start_postgres.sh starts one); skipped without it.
class DatasetStoreOnPostgres : public ::testing::Test {
 protected:
  void SetUp() override {
    schema_.create("d");
    location_ = schema_.url();
  }

  ecocompute::testing::PostgresSchema schema_;
  std::string location_;
};

TEST_F(DatasetStoreOnPostgres, ImportsOnceAndQueriesLikeSqlite) {
  auto store = DatasetStore::open(location_);
  ASSERT_TRUE(store) << store.error().describe();
  auto batch = read_published_dir(kPublishedData);
  ASSERT_TRUE(batch);
  auto first = store->import(*batch);
  ASSERT_TRUE(first) << first.error().describe();
  EXPECT_EQ(first->rows_added, 53);
  EXPECT_EQ(first->sessions_added, 7);
  auto again = store->import(*batch);
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_EQ(again->rows_added, 0);
  EXPECT_EQ(again->rows_already_present, 53);
  auto ada_nf4 = store->rows(query_arch_precision("ada", "NF4"));
  ASSERT_TRUE(ada_nf4) << ada_nf4.error().describe();
  EXPECT_EQ(ada_nf4->size(), 14u);
  auto session = store->find_session("rtx4090_2026-07-24");
  ASSERT_TRUE(session) << session.error().describe();
  auto july = store->rows(query_session(session->id));
  ASSERT_TRUE(july);
  const DataRow* row = find_row(*july, "Qwen/Qwen2.5-3B", "NF4");
  ASSERT_NE(row, nullptr);
  EXPECT_NEAR(row->delta_pct(), 0.7558, 1e-4);

  // Every session and row reads back exactly as from SQLite, although PostgreSQL moves numbers as text.
  auto reference = DatasetStore::open_in_memory();
  ASSERT_TRUE(reference && reference->import(*batch));
  EXPECT_EQ(Json(*store->sessions()), Json(*reference->sessions()));
  const auto on_postgres = store->rows(query_everything());
  const auto on_sqlite = reference->rows(query_everything());
  ASSERT_TRUE(on_postgres && on_sqlite);
  ASSERT_EQ(on_postgres->size(), on_sqlite->size());
  for (std::size_t i = 0; i < on_sqlite->size(); ++i) {
    EXPECT_EQ(Json((*on_postgres)[i]), Json((*on_sqlite)[i])) << (*on_sqlite)[i].row_key;
  }
}

TEST_F(DatasetStoreOnPostgres, ReadsOnlyTheRowsAnAnswerListsWhenAsked) {
  auto store = DatasetStore::open(location_);
  ASSERT_TRUE(store) << store.error().describe();
  ASSERT_TRUE(store->import(annotated_july()));
  expect_only_annotated_rows(*store);
}

TEST_F(DatasetStoreOnPostgres, FailedImportLeavesNothing) {
  auto store = DatasetStore::open(location_);
  ASSERT_TRUE(store) << store.error().describe();
  auto batch = read_published_csv(kPublishedData / "rtx4090_2026-07-24.csv");
  ASSERT_TRUE(batch);
  batch->rows.back().params_b = -3;  // refused before any write
  EXPECT_FALSE(store->import(*batch));
  batch->rows.back().params_b = 7;
  batch->rows.back().note = "not UTF-8: \xff";  // passes validation; the server refuses it, mid-transaction
  auto result = store->import(*batch);
  ASSERT_FALSE(result);
  EXPECT_NE(result.error().message().find("rolled back"), std::string::npos) << result.error().describe();
  EXPECT_TRUE(store->rows(query_everything())->empty());
  EXPECT_TRUE(store->sessions()->empty());
}

TEST_F(DatasetStoreOnPostgres, ReopeningKeepsTheRows) {
  {
    auto store = DatasetStore::open(location_);
    ASSERT_TRUE(store) << store.error().describe();
    ASSERT_TRUE(store->import(*read_published_csv(kPublishedData / "rtx4090_2026-07-24.csv")));
  }
  auto reopened = DatasetStore::open(location_);
  ASSERT_TRUE(reopened) << reopened.error().describe();
  EXPECT_EQ(reopened->rows()->size(), 10u);
  // A store URL is a store, never a missing file that falls back to the published data.
  bool used_published = true;
  auto named = open_store_or_published(location_, &used_published);
  ASSERT_TRUE(named) << named.error().describe();
  EXPECT_FALSE(used_published);
  EXPECT_EQ(named->rows()->size(), 10u);
}

}  // namespace
}  // namespace ecocompute::data
