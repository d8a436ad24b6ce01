// Tests of corpus loading: identity (name, bytes, sha256), the shipped default, and bad paths.
#include "quality/corpus.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

namespace ecocompute::quality {
namespace {
namespace fs = std::filesystem;

class CorpusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("eco_corpus_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    if (const char* old = std::getenv("ECOCOMPUTE_DATA_DIR")) saved_ = old;
  }
  void TearDown() override {
    if (saved_) {
      ::setenv("ECOCOMPUTE_DATA_DIR", saved_->c_str(), 1);
    } else {
      ::unsetenv("ECOCOMPUTE_DATA_DIR");
    }
    fs::remove_all(dir_);
  }
  void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
  }

  fs::path dir_;
  std::optional<std::string> saved_;
};

TEST_F(CorpusTest, MakeCorpusRecordsBytesAndSha256) {
  const Corpus corpus = make_corpus("abc.txt", "abc");
  EXPECT_EQ(corpus.info.name, "abc.txt");
  EXPECT_EQ(corpus.info.bytes, 3u);
  // FIPS 180-2 test vector for "abc".
  EXPECT_EQ(corpus.info.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(corpus.text, "abc");
}

TEST_F(CorpusTest, LoadCorpusIsNamedAfterTheFile) {
  write(dir_ / "heldout.txt", "abc");
  auto corpus = load_corpus(dir_ / "heldout.txt");
  ASSERT_TRUE(corpus.has_value()) << corpus.error().describe();
  EXPECT_EQ(corpus->info.name, "heldout.txt");
  EXPECT_EQ(corpus->info.bytes, 3u);
  EXPECT_EQ(corpus->info.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_F(CorpusTest, BadPathsAreErrorsNamingThePath) {
  auto missing = load_corpus(dir_ / "nope.txt");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code(), ErrorCode::not_found);
  EXPECT_NE(missing.error().describe().find("nope.txt"), std::string::npos);

  write(dir_ / "empty.txt", "");
  auto empty = load_corpus(dir_ / "empty.txt");
  ASSERT_FALSE(empty.has_value());
  EXPECT_EQ(empty.error().code(), ErrorCode::invalid_input);
  EXPECT_NE(empty.error().message().find("empty.txt"), std::string::npos);

  auto folder = load_corpus(dir_);
  ASSERT_FALSE(folder.has_value());
  EXPECT_EQ(folder.error().code(), ErrorCode::invalid_argument);
}

TEST_F(CorpusTest, DefaultIsTheFirstShippedTextByName) {
  ::setenv("ECOCOMPUTE_DATA_DIR", dir_.c_str(), 1);
  auto none = default_corpus_path();
  ASSERT_FALSE(none.has_value());
  EXPECT_EQ(none.error().code(), ErrorCode::not_found);
  EXPECT_NE(none.error().message().find((dir_ / "corpora" / "quality").string()), std::string::npos);

  write(dir_ / "corpora" / "quality" / "b.txt", "bbb");
  write(dir_ / "corpora" / "quality" / "a.txt", "aaa");
  write(dir_ / "corpora" / "quality" / "0-notes.md", "not a text");
  auto path = default_corpus_path();
  ASSERT_TRUE(path.has_value());
  EXPECT_EQ(path->filename(), "a.txt");

  auto shipped = load_corpus_or_default({});
  ASSERT_TRUE(shipped.has_value());
  EXPECT_EQ(shipped->info.name, "a.txt");
  write(dir_ / "mine.txt", "mine");
  auto mine = load_corpus_or_default(dir_ / "mine.txt");
  ASSERT_TRUE(mine.has_value());
  EXPECT_EQ(mine->text, "mine");
}

}  // namespace
}  // namespace ecocompute::quality
