// Tests of whole-file reads, atomic writes and sha256.
#include "util/file_io.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

namespace ecocompute {
namespace {
namespace fs = std::filesystem;

TEST(Sha256, KnownVectors) {
  // FIPS 180-2 test vectors.
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(FileIo, AtomicWriteThenReadRoundTrips) {
  const fs::path dir = fs::temp_directory_path() / ("eco_file_io_" + std::to_string(::getpid()));
  const fs::path file = dir / "nested" / "report.json";
  ASSERT_TRUE(write_file_atomic(file, "{\"a\": 1}").has_value());
  auto text = read_file(file);
  ASSERT_TRUE(text.has_value());
  EXPECT_EQ(*text, "{\"a\": 1}");
  auto digest = sha256_file(file);
  ASSERT_TRUE(digest.has_value());
  EXPECT_EQ(*digest, sha256_hex("{\"a\": 1}"));
  // No temporary file is left beside the target.
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(file.parent_path())) ++entries;
  EXPECT_EQ(entries, 1);
  fs::remove_all(dir);
}

// What replace_file's step left, whether it failed or not, and what the path holds after it.
TEST(FileIo, AReplacementThatFailsLeavesTheOldFileAndNoTemporary) {
  const fs::path dir = fs::temp_directory_path() / ("eco_file_io_replace_" + std::to_string(::getpid()));
  const fs::path file = dir / "store.sqlite";
  ASSERT_TRUE(write_file_atomic(file, "old").has_value());
  fs::path seen;
  auto failed = replace_file(file, [&](const fs::path& temporary) -> Result<void> {
    seen = temporary;
    EXPECT_FALSE(fs::exists(temporary));
    EXPECT_EQ(temporary.parent_path(), file.parent_path());  // the rename stays inside one folder
    if (!write_file_atomic(temporary, "half").has_value()) ADD_FAILURE() << "could not write the temporary";
    return unexpected(ErrorCode::io, "the step's own error");
  });
  ASSERT_FALSE(failed.has_value());
  EXPECT_EQ(failed.error().message(), "the step's own error");
  EXPECT_FALSE(fs::exists(seen));
  EXPECT_EQ(*read_file(file), "old");

  auto replaced = replace_file(file, [](const fs::path& temporary) { return write_file_atomic(temporary, "new"); });
  ASSERT_TRUE(replaced.has_value()) << replaced.error().message();
  EXPECT_EQ(*read_file(file), "new");
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 1);

  // A target that cannot be renamed over (a folder with something in it): the error names it, and the
  // temporary goes.
  const fs::path occupied = dir / "occupied";
  fs::create_directories(occupied / "inside");
  auto blocked = replace_file(occupied, [](const fs::path& temporary) { return write_file_atomic(temporary, "x"); });
  ASSERT_FALSE(blocked.has_value());
  EXPECT_NE(blocked.error().message().find("cannot rename into " + occupied.string()), std::string::npos) << blocked.error().message();
  EXPECT_TRUE(fs::is_directory(occupied / "inside"));
  entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++entries;
  EXPECT_EQ(entries, 2);
  fs::remove_all(dir);
}

TEST(FileIo, AFileIsReadWholeWhateverSizeItsStreamReports) {
  // Bytes of every value (NULs included) over several of the read's chunks; an empty file; and a file
  // whose reported size is 0 although it has content (/proc), read to its end all the same.
  const fs::path dir = fs::temp_directory_path() / ("eco_file_io_whole_" + std::to_string(::getpid()));
  std::string bytes;
  for (int i = 0; i < 100000; ++i) bytes += static_cast<char>((i * 7919) & 0xFF);
  ASSERT_TRUE(write_file_atomic(dir / "bytes.bin", bytes).has_value());
  auto read = read_file(dir / "bytes.bin");
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(*read, bytes);
  ASSERT_TRUE(write_file_atomic(dir / "empty", "").has_value());
  auto empty = read_file(dir / "empty");
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->empty());
  auto status = read_file("/proc/self/status");
  ASSERT_TRUE(status.has_value());
  EXPECT_NE(status->find("Pid:"), std::string::npos);
  EXPECT_EQ(status->back(), '\n');
  fs::remove_all(dir);
}

TEST(FileIo, MissingFileErrorNamesPath) {
  auto text = read_file("/nonexistent/ecocompute/x.json");
  ASSERT_FALSE(text.has_value());
  EXPECT_EQ(text.error().code(), ErrorCode::not_found);
  EXPECT_NE(text.error().message().find("/nonexistent/ecocompute/x.json"), std::string::npos);
}

}  // namespace
}  // namespace ecocompute
