// `ecocompute data import-quality` and `data quality` as a whole binary: the fetched llama.cpp README
// imported into a store file with its source, a second import adding nothing, the listing filtered by a
// type in any case, the shipped evidence without a store, and a malformed README refused with its line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "support/cli_run.hpp"
#include "support/scratch_dir.hpp"

namespace ecocompute::testing {
namespace {

namespace fs = std::filesystem;

class QualityCliTest : public ScratchDirTest {
 protected:
  CliOutcome run(const std::string& args) const {
    const std::string env = "ECOCOMPUTE_DATA_DIR='" + std::string(ECOCOMPUTE_SOURCE_DIR) + "/data' ECOCOMPUTE_STORE='" +
                            (dir_ / "store.sqlite").string() + "'";
    return run_ecocompute(env, args, dir_);
  }
};

TEST_F(QualityCliTest, ImportsTheFetchedReadmeOnceAndListsItWithSources) {
  const CliOutcome first = run("data import-quality --json");
  ASSERT_EQ(first.status, 0) << first.err;
  EXPECT_EQ(nlohmann::json::parse(first.out)["rows_added"], 67);
  const CliOutcome again = run("data import-quality --json");
  ASSERT_EQ(again.status, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["rows_added"], 0);
  EXPECT_EQ(nlohmann::json::parse(again.out)["rows_already_present"], 67);

  const CliOutcome listed = run("data quality --precision q4_0 --json");
  ASSERT_EQ(listed.status, 0) << listed.err;
  const auto rows = nlohmann::json::parse(listed.out);
  ASSERT_EQ(rows.size(), 2u);  // LLaMA 3 8B and LLaMA 2 70B
  EXPECT_EQ(rows[0]["precision"], "Q4_0");
  EXPECT_EQ(rows[0]["basis"], "published");
  EXPECT_EQ(rows[0]["source"]["file"], "tools/perplexity/README.md");
  EXPECT_EQ(rows[0]["source"]["table_revision"], "f364eb6f");

  const CliOutcome table = run("data quality -p Q6_K");
  ASSERT_EQ(table.status, 0) << table.err;
  EXPECT_NE(table.out.find("tools/perplexity/README.md:"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("4 rows"), std::string::npos) << table.out;
}

TEST_F(QualityCliTest, WithoutAStoreTheShippedEvidenceReadsTheFetchedSource) {
  const CliOutcome listed = run("data quality -p iq4_nl --json");
  ASSERT_EQ(listed.status, 0) << listed.err;
  EXPECT_EQ(nlohmann::json::parse(listed.out).size(), 1u);
  EXPECT_FALSE(fs::exists(dir_ / "store.sqlite"));
}

TEST_F(QualityCliTest, AMalformedReadmeIsExitTwoNamingTheLineAndWritesNothing) {
  const fs::path bad = dir_ / "README.md";
  std::ofstream(bad) << "## LLaMA 3 8b Scoreboard\n\n| Quantization | ΔPPL |\n|---|---|\n| q8_0 | 0.5 |\n| q4_0 | 1.x |\n";
  const CliOutcome outcome = run("data import-quality '" + bad.string() + "'");
  EXPECT_EQ(outcome.status, 2) << outcome.err;
  EXPECT_NE(outcome.err.find(bad.string() + ":6:"), std::string::npos) << outcome.err;
  EXPECT_FALSE(fs::exists(dir_ / "store.sqlite"));  // the file is read before the store is opened: nothing written
}

}  // namespace
}  // namespace ecocompute::testing
