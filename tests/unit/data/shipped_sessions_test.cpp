// data/sessions/shipped.txt: which of our sessions are default evidence.
#include "data/shipped_sessions.hpp"

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

}  // namespace
}  // namespace ecocompute::data
