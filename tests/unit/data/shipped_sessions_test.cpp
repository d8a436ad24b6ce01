// data/sessions/shipped.txt: which of our sessions are default evidence.
#include "data/shipped_sessions.hpp"

#include "data/dataset_import.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace ecocompute::data {
namespace {

namespace fs = std::filesystem;

class ShippedSessionsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("shipped_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "a");
    const fs::path golden = fs::path(ECOCOMPUTE_SOURCE_DIR) / "tests/golden/energy";
    for (const char* name : {"energy-F16.json", "energy-Q8_0.json"}) fs::copy_file(golden / name, dir_ / "a" / name);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void list(const std::string& text) { std::ofstream(dir_ / "shipped.txt") << text; }
  fs::path dir_;
};

TEST_F(ShippedSessionsTest, ListedFoldersAreImportedReportByReport) {
  list("# our sessions\n\n  a  \n");
  auto batches = read_shipped_sessions(dir_);
  ASSERT_TRUE(batches) << batches.error().describe();
  ASSERT_EQ(batches->size(), 2u);  // F16 (its session, no row) and Q8_0 (one row)
  EXPECT_TRUE(batches->front().rows.empty());
  ASSERT_EQ(batches->back().rows.size(), 1u);
  EXPECT_EQ(batches->back().rows.front().precision, "Q8_0");
}

TEST_F(ShippedSessionsTest, NoListNoSessions) {
  auto batches = read_shipped_sessions(dir_);
  ASSERT_TRUE(batches);
  EXPECT_TRUE(batches->empty());
}

TEST_F(ShippedSessionsTest, AMissingFolderIsAnErrorNamingIt) {
  list("a\nnot-here\n");
  auto batches = read_shipped_sessions(dir_);
  ASSERT_FALSE(batches);
  EXPECT_NE(batches.error().describe().find("not-here"), std::string::npos) << batches.error().describe();
}

TEST_F(ShippedSessionsTest, AReportThatIsNotAMeasurementIsAnError) {
  std::ofstream(dir_ / "a" / "energy-Q4_0.json") << R"({"schema_version": "ecocompute-energy/1.2"})";
  list("a\n");
  auto batches = read_shipped_sessions(dir_);
  ASSERT_FALSE(batches);
  EXPECT_NE(batches.error().describe().find("energy-Q4_0.json"), std::string::npos) << batches.error().describe();
}

TEST_F(ShippedSessionsTest, ARowSaysSoWhenItsBaselineRanThrottledAndWasCounted) {
  // The 14.8 B H200 session: every F16 trial ran at the power limit (sw_power_cap) and was counted
  // under --accept-throttled. The candidate's report does not list the baseline's trials; the run
  // summary beside it does, and the row's note says so.
  const fs::path session = fs::path(ECOCOMPUTE_SOURCE_DIR) / "data/sessions/h200-2026-12-01-qwen2.5-14b-campaign-1";
  fs::create_directories(dir_ / "b");
  fs::copy_file(session / "energy-Q4_K_M.json", dir_ / "b" / "energy-Q4_K_M.json");
  auto alone = read_report_batch(dir_ / "b" / "energy-Q4_K_M.json");
  ASSERT_TRUE(alone) << alone.error().describe();
  ASSERT_EQ(alone->rows.size(), 1u);
  EXPECT_EQ(alone->rows.front().note.find("Throttled trials counted"), std::string::npos);  // nothing to read it from

  // Another run's summary (the golden run) does not speak for this report.
  fs::copy_file(fs::path(ECOCOMPUTE_SOURCE_DIR) / "tests/golden/energy/run.json", dir_ / "b" / "run.json");
  auto other = read_report_batch(dir_ / "b" / "energy-Q4_K_M.json");
  ASSERT_TRUE(other);
  EXPECT_EQ(other->rows.front().note.find("Throttled trials counted"), std::string::npos);

  fs::copy_file(session / "run.json", dir_ / "b" / "run.json", fs::copy_options::overwrite_existing);
  auto beside = read_report_batch(dir_ / "b" / "energy-Q4_K_M.json");
  ASSERT_TRUE(beside) << beside.error().describe();
  const std::string& note = beside->rows.front().note;
  EXPECT_NE(note.find("Throttled trials counted"), std::string::npos) << note;
  EXPECT_NE(note.find("F16 (baseline) 3 of 3"), std::string::npos) << note;
  EXPECT_EQ(note.find("Q4_K_M 3 of 3"), std::string::npos) << note;  // Q4_K_M itself was not throttled
}

TEST_F(ShippedSessionsTest, TheReportsOfOneFolderShareOneParsedRunSummary) {
  const fs::path session = fs::path(ECOCOMPUTE_SOURCE_DIR) / "data/sessions/h200-2026-12-01-qwen2.5-14b-campaign-1";
  fs::create_directories(dir_ / "b");
  for (const char* name : {"energy-Q4_K_M.json", "energy-Q4_0.json", "run.json"}) {
    fs::copy_file(session / name, dir_ / "b" / name);
  }
  RunSummaries runs;
  auto first = read_report_batch(dir_ / "b" / "energy-Q4_K_M.json", runs);
  ASSERT_TRUE(first) << first.error().describe();
  const report::RunReport* parsed = runs.at(dir_ / "b" / "run.json");
  ASSERT_NE(parsed, nullptr);
  // Gone from the disk, the summary still serves the folder's next report: it was parsed once.
  fs::remove(dir_ / "b" / "run.json");
  EXPECT_EQ(runs.at(dir_ / "b" / "run.json"), parsed);
  auto second = read_report_batch(dir_ / "b" / "energy-Q4_0.json", runs);
  ASSERT_TRUE(second) << second.error().describe();
  ASSERT_EQ(second->rows.size(), 1u);
  EXPECT_NE(second->rows.front().note.find("F16 (baseline) 3 of 3"), std::string::npos) << second->rows.front().note;
  // Absent or not a run summary: nothing, remembered as nothing.
  EXPECT_EQ(runs.at(dir_ / "a" / "run.json"), nullptr);
  std::ofstream(dir_ / "a" / "broken.json") << "{ not json";
  EXPECT_EQ(runs.at(dir_ / "a" / "broken.json"), nullptr);
}

}  // namespace
}  // namespace ecocompute::data
