// The copy of the published store kept in the cache folder: read when its inputs are unchanged, built
// again when they change or the copy is damaged, never needed for an answer.
#include "data/published_snapshot.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "data/dataset_import.hpp"
#include "data/dataset_store.hpp"
#include "support/scratch_dir.hpp"
#include "util/json.hpp"

namespace ecocompute::data {
namespace {

namespace fs = std::filesystem;
using ::ecocompute::testing::slurp;

// A data folder of the published CSVs and two of our shipped sessions (one of them in a subfolder, as the
// list allows), with the cache in a folder of its own; the environment is put back afterwards.
class PublishedSnapshotTest : public ::ecocompute::testing::ScratchDirTest {
 protected:
  void SetUp() override {
    ScratchDirTest::SetUp();
    const fs::path source = fs::path(ECOCOMPUTE_SOURCE_DIR) / "data";
    data_ = dir_ / "data";
    fs::create_directories(data_ / "sessions");
    fs::copy(source / "published", data_ / "published");
    for (const char* folder : {"h200-2026-11-29-llama3-8b-synthetic", "h200-2026-11-30-llama3-1b-edges/fast"}) {
      fs::create_directories(data_ / "sessions" / folder);
      fs::copy(source / "sessions" / folder, data_ / "sessions" / folder);
    }
    list("h200-2026-11-29-llama3-8b-synthetic\nh200-2026-11-30-llama3-1b-edges/fast\n");
    cache_ = dir_ / "cache";
    keep("ECOCOMPUTE_DATA_DIR", data_);
    keep("ECOCOMPUTE_CACHE_DIR", cache_);
  }
  void TearDown() override {
    for (const auto& [name, value] : saved_) {
      if (value) ::setenv(name.c_str(), value->c_str(), 1); else ::unsetenv(name.c_str());
    }
    ScratchDirTest::TearDown();
  }
  void keep(const std::string& name, const fs::path& value) {
    const char* before = std::getenv(name.c_str());
    saved_.emplace_back(name, before != nullptr ? std::optional<std::string>(before) : std::nullopt);
    ::setenv(name.c_str(), value.c_str(), 1);
  }
  void list(const std::string& text) { std::ofstream(data_ / "sessions" / "shipped.txt") << text; }
  fs::path snapshot() const {
    auto digest = published_inputs_digest(data_);
    EXPECT_TRUE(digest) << digest.error().describe();
    return digest ? published_snapshot_path(*digest) : fs::path();
  }
  // The store's evidence as one text: every session and every row with all its fields.
  static std::string evidence_of(const DatasetStore& store) {
    auto sessions = store.sessions();
    auto rows = store.rows(RowQuery{.gpu_arch = {}, .engine = {}, .precision = {}, .session_id = {}, .measured_only = false,
                                    .quality_or_note = {}});
    EXPECT_TRUE(sessions && rows);
    return Json(*sessions).dump() + "\n" + Json(*rows).dump();
  }

  fs::path data_, cache_;
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

TEST_F(PublishedSnapshotTest, TheFirstOpenKeepsACopyThatTheNextOpenReadsWithTheSameEvidence) {
  auto built = open_published_store();
  ASSERT_TRUE(built) << built.error().describe();
  ASSERT_TRUE(fs::exists(snapshot())) << snapshot();
  auto read = open_published_store();
  ASSERT_TRUE(read) << read.error().describe();
  EXPECT_EQ(evidence_of(*read), evidence_of(*built));
  EXPECT_EQ(*read->evidence_version(), *built->evidence_version());
  // What the next open answers from is the copy: put a store of the published data alone in its place.
  auto published_only = DatasetStore::open_in_memory();
  ASSERT_TRUE(published_only);
  auto batch = read_published_dir(data_ / "published");
  ASSERT_TRUE(batch) << batch.error().describe();
  ASSERT_TRUE(published_only->import(*batch));
  ASSERT_TRUE(published_only->write_copy(snapshot()));
  auto from_copy = open_published_store();
  ASSERT_TRUE(from_copy) << from_copy.error().describe();
  EXPECT_EQ(evidence_of(*from_copy), evidence_of(*published_only));
  EXPECT_NE(evidence_of(*from_copy), evidence_of(*built));
}

TEST_F(PublishedSnapshotTest, AChangedInputIsReadAgainNotTakenFromTheCopy) {
  auto two = open_published_store();
  ASSERT_TRUE(two) << two.error().describe();
  const fs::path first = snapshot();
  // A shorter list: another digest, so the session left out is not answered from the first copy.
  list("h200-2026-11-29-llama3-8b-synthetic\n");
  EXPECT_NE(snapshot(), first);
  auto one = open_published_store();
  ASSERT_TRUE(one) << one.error().describe();
  EXPECT_NE(*one->evidence_version(), *two->evidence_version());
  // A byte of one report (a space at its end, the same figures): another digest too.
  const std::string before = snapshot().string();
  std::ofstream(data_ / "sessions/h200-2026-11-29-llama3-8b-synthetic/energy-Q4_0.json", std::ios::app) << ' ';
  EXPECT_NE(snapshot().string(), before);
  // And a report that no longer imports is the error it always was, whatever copy is kept.
  std::ofstream(data_ / "sessions/h200-2026-11-29-llama3-8b-synthetic/energy-Q4_0.json") << "{";
  auto broken = open_published_store();
  ASSERT_FALSE(broken);
  EXPECT_NE(broken.error().describe().find("energy-Q4_0.json"), std::string::npos) << broken.error().describe();
}

TEST_F(PublishedSnapshotTest, ADamagedCopyIsBuiltAgainAndReplaced) {
  auto built = open_published_store();
  ASSERT_TRUE(built) << built.error().describe();
  const std::string whole = slurp(snapshot());
  ASSERT_GT(whole.size(), 4096u);
  for (const std::string& damaged : {std::string("not a database"), whole.substr(0, whole.size() / 2)}) {
    std::ofstream(snapshot(), std::ios::binary | std::ios::trunc) << damaged;
    EXPECT_FALSE(DatasetStore::open_in_memory_copy_of(snapshot()));
    auto again = open_published_store();
    ASSERT_TRUE(again) << again.error().describe();
    EXPECT_EQ(evidence_of(*again), evidence_of(*built));
    EXPECT_TRUE(DatasetStore::open_in_memory_copy_of(snapshot())) << "the damaged copy was replaced";
  }
}

TEST_F(PublishedSnapshotTest, ACacheFolderThatCannotBeWrittenOnlyCostsTheBuild) {
  std::ofstream(dir_ / "a-file") << "x";
  keep("ECOCOMPUTE_CACHE_DIR", dir_ / "a-file");
  auto built = open_published_store();
  ASSERT_TRUE(built) << built.error().describe();
  auto again = open_published_store();
  ASSERT_TRUE(again) << again.error().describe();
  EXPECT_EQ(evidence_of(*again), evidence_of(*built));
}

TEST_F(PublishedSnapshotTest, AFileThatIsNotADatabaseIsAnErrorNamingIt) {
  std::ofstream(dir_ / "garbage.sqlite") << std::string(8192, 'x');
  auto copy = DatasetStore::open_in_memory_copy_of(dir_ / "garbage.sqlite");
  ASSERT_FALSE(copy);
  EXPECT_NE(copy.error().describe().find("garbage.sqlite"), std::string::npos) << copy.error().describe();
  auto missing = DatasetStore::open_in_memory_copy_of(dir_ / "missing.sqlite");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().describe().find("missing.sqlite"), std::string::npos) << missing.error().describe();
}

}  // namespace
}  // namespace ecocompute::data
