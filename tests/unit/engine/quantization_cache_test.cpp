// Tests of the quantization cache: keys, in-process quantization, reuse, refusals and atomicity.
#include "engine/quantization_cache.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "support/tiny_gguf.hpp"
#include "util/file_io.hpp"

namespace ecocompute::engine {
namespace {
using ::testing::HasSubstr;
using testing::TempDir;

TEST(QuantizationCache, KeysByHashAndType) {
  QuantizationCache cache("/cache");
  EXPECT_EQ(cache.path_for("abc123", GgufType::Q4_K_M), std::filesystem::path("/cache/abc123/Q4_K_M.gguf"));
  EXPECT_EQ(cache.path_for("abc123", GgufType::IQ4_NL), std::filesystem::path("/cache/abc123/IQ4_NL.gguf"));
}

TEST(QuantizationCache, DefaultFolderFollowsXdg) {
  const char* old_xdg = std::getenv("XDG_CACHE_HOME");
  const std::string saved = old_xdg != nullptr ? old_xdg : "";
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg-test", 1);
  EXPECT_EQ(QuantizationCache::default_folder(), std::filesystem::path("/tmp/xdg-test/ecocompute"));
  ::unsetenv("XDG_CACHE_HOME");
  const char* home = std::getenv("HOME");
  if (home != nullptr && *home != '\0') {
    EXPECT_EQ(QuantizationCache::default_folder(), std::filesystem::path(home) / ".cache" / "ecocompute");
  }
  if (old_xdg != nullptr) ::setenv("XDG_CACHE_HOME", saved.c_str(), 1);
}

class QuantizationCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    source_ = dir_ / "tiny-f32.gguf";
    testing::write_tiny_llama(source_);
  }
  TempDir dir_;
  std::filesystem::path source_;
};

TEST_F(QuantizationCacheTest, QuantizesOnceThenReuses) {
  QuantizationCache cache(dir_ / "cache");
  auto first = cache.prepare(source_, GgufType::Q8_0, 2);
  ASSERT_TRUE(first) << first.error().describe();
  EXPECT_EQ(first->origin, PreparedModel::Origin::quantized);
  const std::string sha = *sha256_file(source_);
  EXPECT_EQ(first->source_sha256, sha);
  EXPECT_EQ(first->path, dir_ / "cache" / sha / "Q8_0.gguf");
  auto inspected = inspect_gguf(first->path);
  ASSERT_TRUE(inspected) << inspected.error().describe();
  EXPECT_EQ(inspected->type, GgufType::Q8_0);
  EXPECT_EQ(inspected->model.n_params, testing::kTinyLlamaParams);
  // Q8_0 is 34 B per 32 weights = 8.5 bits; norms stay F32, so slightly above 8.5.
  EXPECT_GT(inspected->model.bits_per_weight, 8.5);
  EXPECT_LT(inspected->model.bits_per_weight, 8.6);
  // Metadata survives quantization: the weights stay labelled synthetic.
  EXPECT_EQ(inspected->weights_label, "synthetic");
  // No temporary file is left beside it.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : std::filesystem::directory_iterator(first->path.parent_path())) ++files;
  EXPECT_EQ(files, 1U);

  const auto written = std::filesystem::last_write_time(first->path);
  auto second = cache.prepare(source_, GgufType::Q8_0, 2);
  ASSERT_TRUE(second);
  EXPECT_EQ(second->origin, PreparedModel::Origin::cache_hit);
  EXPECT_EQ(second->path, first->path);
  EXPECT_EQ(std::filesystem::last_write_time(second->path), written);

  // A new cache object (a new process) finds it too.
  QuantizationCache again(dir_ / "cache");
  auto third = again.prepare(source_, GgufType::Q8_0, 2);
  ASSERT_TRUE(third);
  EXPECT_EQ(third->origin, PreparedModel::Origin::cache_hit);
}

TEST_F(QuantizationCacheTest, DamagedCacheEntryIsQuantizedAgain) {
  QuantizationCache cache(dir_ / "cache");
  auto first = cache.prepare(source_, GgufType::Q8_0, 2);
  ASSERT_TRUE(first);
  std::filesystem::resize_file(first->path, std::filesystem::file_size(first->path) / 2);
  auto second = cache.prepare(source_, GgufType::Q8_0, 2);
  ASSERT_TRUE(second) << second.error().describe();
  EXPECT_EQ(second->origin, PreparedModel::Origin::quantized);
  EXPECT_TRUE(inspect_gguf(second->path));
}

TEST_F(QuantizationCacheTest, FileOfTheTargetTypeIsUsedAsItIs) {
  QuantizationCache cache(dir_ / "cache");
  auto same = cache.prepare(source_, GgufType::F32);
  ASSERT_TRUE(same);
  EXPECT_EQ(same->origin, PreparedModel::Origin::source_as_is);
  EXPECT_EQ(same->path, source_);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "cache"));
}

TEST_F(QuantizationCacheTest, QuantizedSourceIsNotQuantizedAgain) {
  QuantizationCache cache(dir_ / "cache");
  auto q8 = cache.prepare(source_, GgufType::Q8_0, 2);
  ASSERT_TRUE(q8);
  auto as_is = cache.prepare(q8->path, GgufType::Q8_0);
  ASSERT_TRUE(as_is);
  EXPECT_EQ(as_is->origin, PreparedModel::Origin::source_as_is);
  auto requantized = cache.prepare(q8->path, GgufType::Q4_0);
  ASSERT_FALSE(requantized);
  EXPECT_EQ(requantized.error().code(), ErrorCode::invalid_argument);
  EXPECT_THAT(requantized.error().message(), HasSubstr("cannot make Q4_0 from " + q8->path.string() + ": the file is already Q8_0"));
}

TEST_F(QuantizationCacheTest, TypesNeedingAnImportanceMatrixAreRefused) {
  QuantizationCache cache(dir_ / "cache");
  auto iq2 = cache.prepare(source_, GgufType::IQ2_XXS);
  ASSERT_FALSE(iq2);
  EXPECT_THAT(iq2.error().message(), HasSubstr("IQ2_XXS needs an importance matrix"));
}

TEST_F(QuantizationCacheTest, UnwritableFolderIsAnIoError) {
  // A regular file where the cache folder should be: create_directories fails.
  testing::write_bytes(dir_ / "blocker", "x");
  QuantizationCache cache(dir_ / "blocker" / "cache");
  auto got = cache.prepare(source_, GgufType::Q8_0, 2);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code(), ErrorCode::io);
  EXPECT_THAT(got.error().message(), HasSubstr("cannot create cache folder"));
}

TEST_F(QuantizationCacheTest, FullDiskIsAnIoErrorBeforeAnythingIsWritten) {
  QuantizationCache cache(dir_ / "cache", [](const std::filesystem::path&) -> std::uint64_t { return 1000; });
  auto got = cache.prepare(source_, GgufType::Q8_0, 2);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code(), ErrorCode::io);
  // Estimate: 4,170,048 params × 8.5 bits / 8 × 1.1 + 16 MiB = 4,873,743 + 16,777,216 B ≈ 0.02 GiB.
  EXPECT_THAT(got.error().message(), HasSubstr("not enough disk space in "));
  EXPECT_THAT(got.error().message(), HasSubstr("about 0.02 GiB needed, 0.00 GiB available"));
  EXPECT_FALSE(std::filesystem::exists(cache.path_for(*sha256_file(source_), GgufType::Q8_0)));
}

TEST_F(QuantizationCacheTest, AQuantizedFileThatCannotTakeItsPlaceIsAnIoErrorAndLeavesNoTemporary) {
  QuantizationCache cache(dir_ / "cache");
  const std::filesystem::path entry = cache.path_for(*sha256_file(source_), GgufType::Q8_0);
  // A folder with a file in it where the entry goes: it is no model, cannot be removed as one, and no
  // file can be renamed over it.
  std::filesystem::create_directories(entry);
  testing::write_bytes(entry / "keep", "x");
  auto got = cache.prepare(source_, GgufType::Q8_0, 2);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code(), ErrorCode::io);
  EXPECT_THAT(got.error().message(), HasSubstr("cannot rename into " + entry.string()));
  std::vector<std::string> left;
  for (const auto& e : std::filesystem::directory_iterator(entry.parent_path())) left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"Q8_0.gguf"});  // the folder alone: the quantized temporary is gone
  EXPECT_TRUE(std::filesystem::exists(entry / "keep"));
}

TEST_F(QuantizationCacheTest, BadSourceIsNamed) {
  QuantizationCache cache(dir_ / "cache");
  auto got = cache.prepare(dir_ / "missing.gguf", GgufType::Q8_0);
  ASSERT_FALSE(got);
  EXPECT_EQ(got.error().code(), ErrorCode::not_found);
  EXPECT_THAT(got.error().message(), HasSubstr("missing.gguf"));
}

}  // namespace
}  // namespace ecocompute::engine
