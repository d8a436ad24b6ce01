// Tests of GGUF inspection: what is read from a good file, and a clear Error for each kind of bad one.
#include "engine/gguf_inspection.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "support/tiny_gguf.hpp"

namespace ecocompute::engine {
namespace {
using ::testing::HasSubstr;
using testing::TempDir;

// Returns the Error inspect_gguf gives for `path`; a success fails the test and returns an internal Error.
Error failure_of(const std::filesystem::path& path) {
  auto got = inspect_gguf(path);
  if (got) {
    ADD_FAILURE() << path << " was accepted";
    return Error{ErrorCode::internal, "accepted"};
  }
  return got.error();
}

TEST(GgufInspection, ReadsTheTinyLlamaAtF32) {
  TempDir dir;
  const auto path = dir / "tiny-f32.gguf";
  testing::write_tiny_llama(path);
  auto got = inspect_gguf(path);
  ASSERT_TRUE(got) << got.error().describe();
  const ModelInfo& m = got->model;
  EXPECT_EQ(m.architecture, "llama");
  EXPECT_EQ(m.name, "tiny-llama-test");
  EXPECT_EQ(m.gguf_type, "F32");
  EXPECT_EQ(m.precision_class, "32-bit");
  EXPECT_EQ(m.n_params, testing::kTinyLlamaParams);
  EXPECT_EQ(m.size_bytes, testing::kTinyLlamaParams * 4);  // 4,170,048 × 4 B = 16,680,192
  EXPECT_DOUBLE_EQ(m.bits_per_weight, 32.0);
  EXPECT_EQ(m.n_vocab, 32000);
  EXPECT_EQ(m.n_ctx_train, 512U);
  EXPECT_TRUE(m.synthetic_weights);
  EXPECT_EQ(got->weights_label, "synthetic");
  EXPECT_EQ(got->type, GgufType::F32);
  EXPECT_FALSE(got->type_guessed);
  EXPECT_EQ(got->n_tensors, 2 + 2 * 9 + 1);  // embeddings + output, 9 per layer, output_norm
  EXPECT_EQ(got->gguf_version, 3U);
}

TEST(GgufInspection, MeasuresBitsPerWeightOfAnF16File) {
  TempDir dir;
  const auto path = dir / "tiny-f16.gguf";
  testing::write_tiny_llama(path, {.weight_type = GGML_TYPE_F16, .weights_label = "trained-fixture"});
  auto got = inspect_gguf(path);
  ASSERT_TRUE(got) << got.error().describe();
  // 2-D tensors: 4,170,048 − 320 = 4,169,728 elements × 2 B; norms: 320 × 4 B.
  // bytes = 8,339,456 + 1,280 = 8,340,736; bits/weight = 16 + 320 × 16 / 4,170,048.
  EXPECT_EQ(got->model.size_bytes, 8'340'736U);
  EXPECT_DOUBLE_EQ(got->model.bits_per_weight, 16.0 + 5120.0 / 4170048.0);
  EXPECT_EQ(got->model.gguf_type, "F16");
  EXPECT_EQ(got->model.precision_class, "16-bit");
  EXPECT_FALSE(got->model.synthetic_weights);
  EXPECT_EQ(got->weights_label, "trained-fixture");
}

TEST(GgufInspection, MissingFileIsNotFoundAndNamed) {
  const Error e = failure_of("/nonexistent/model.gguf");
  EXPECT_EQ(e.code(), ErrorCode::not_found);
  EXPECT_THAT(e.message(), HasSubstr("/nonexistent/model.gguf"));
}

TEST(GgufInspection, WrongMagicIsNotGguf) {
  TempDir dir;
  const auto path = dir / "model.gguf";
  testing::write_bytes(path, "PK\x03\x04 this is a zip file, not a model");
  const Error e = failure_of(path);
  EXPECT_EQ(e.code(), ErrorCode::invalid_input);
  EXPECT_THAT(e.message(), HasSubstr("not a GGUF file (magic is 'PK?" "?'"));
  EXPECT_THAT(e.message(), HasSubstr(path.string()));
}

TEST(GgufInspection, EmptyFileIsNotGguf) {
  TempDir dir;
  const auto path = dir / "empty.gguf";
  testing::write_bytes(path, "");
  EXPECT_THAT(failure_of(path).message(), HasSubstr("only 0 bytes"));
}

TEST(GgufInspection, FolderIsNotARegularFile) {
  TempDir dir;
  EXPECT_THAT(failure_of(dir.path()).message(), HasSubstr("not a regular file"));
}

TEST(GgufInspection, UnsupportedVersionIsNamed) {
  TempDir dir;
  const auto path = dir / "v9.gguf";
  testing::write_bytes(path, std::string("GGUF\x09\x00\x00\x00", 8) + std::string(16, '\0'));
  EXPECT_THAT(failure_of(path).message(), HasSubstr("unsupported GGUF version 9"));
}

TEST(GgufInspection, VocabOnlyGgufHasNoTensors) {
  const Error e = failure_of(testing::llama_spm_vocab());
  EXPECT_EQ(e.code(), ErrorCode::invalid_input);
  EXPECT_THAT(e.message(), HasSubstr("has no tensors (a vocab-only GGUF"));
  EXPECT_THAT(e.message(), HasSubstr("ggml-vocab-llama-spm.gguf"));
}

TEST(GgufInspection, TruncatedTensorDataIsNamed) {
  TempDir dir;
  const auto path = dir / "cut.gguf";
  testing::write_bare_gguf(path, 3);
  const auto size = std::filesystem::file_size(path);
  std::filesystem::resize_file(path, size - 100);
  const Error e = failure_of(path);
  // The last tensor (t2, 512 B) ends at the old file size; 100 bytes are gone.
  EXPECT_THAT(e.message(), HasSubstr("truncated: tensor 't2' ends at byte " + std::to_string(size)));
  EXPECT_THAT(e.message(), HasSubstr("the file has " + std::to_string(size - 100) + " bytes"));
}

TEST(GgufInspection, FileTypeOutsideTheTableIsAnErrorListingValidTypes) {
  TempDir dir;
  const auto path = dir / "q5_1.gguf";
  testing::write_bare_gguf(path, 1, /*file_type=*/9);  // LLAMA_FTYPE_MOSTLY_Q5_1
  const Error e = failure_of(path);
  EXPECT_EQ(e.code(), ErrorCode::invalid_input);
  EXPECT_THAT(e.describe(), HasSubstr(path.string()));
  EXPECT_THAT(e.describe(), HasSubstr("not one this tool measures; valid types: F32, F16"));
}

TEST(GgufInspection, MissingFileTypeIsGuessedFromTheTensors) {
  TempDir dir;
  const auto path = dir / "untyped.gguf";
  testing::write_bare_gguf(path, 2, /*file_type=*/-1);
  auto got = inspect_gguf(path);
  ASSERT_TRUE(got) << got.error().describe();
  EXPECT_EQ(got->type, GgufType::F32);
  EXPECT_TRUE(got->type_guessed);
  EXPECT_EQ(got->model.name, "untyped");  // no general.name: the file stem
  EXPECT_FALSE(got->model.synthetic_weights);
}

// Fuzz: every truncation of a small GGUF is an Error, never a crash or a success.
TEST(GgufInspectionFuzz, EveryTruncationOfASmallFileIsAnError) {
  TempDir dir;
  const auto path = dir / "small.gguf";
  testing::write_bare_gguf(path, 3);
  const auto size = std::filesystem::file_size(path);
  ASSERT_TRUE(inspect_gguf(path));
  for (auto length = static_cast<std::int64_t>(size) - 1; length >= 0; --length) {
    std::filesystem::resize_file(path, static_cast<std::uintmax_t>(length));
    EXPECT_EQ(failure_of(path).code(), ErrorCode::invalid_input) << "length " << length;
  }
}

// Fuzz: a sample of truncations of the tiny Llama (a 32000-token vocabulary, 21 tensors), cut from
// the end down, including every length through the first 4 KiB of header and metadata.
TEST(GgufInspectionFuzz, SampledTruncationsOfAModelAreErrors) {
  TempDir dir;
  const auto path = dir / "tiny.gguf";
  testing::write_tiny_llama(path, {.weight_type = GGML_TYPE_F16});
  const auto size = static_cast<std::int64_t>(std::filesystem::file_size(path));
  std::vector<std::int64_t> lengths;
  for (std::int64_t cut = 1; cut < size; cut += size / 97) lengths.push_back(size - cut);
  for (std::int64_t length = 4096; length >= 0; length -= 7) lengths.push_back(length);
  std::sort(lengths.rbegin(), lengths.rend());
  for (const std::int64_t length : lengths) {
    std::filesystem::resize_file(path, static_cast<std::uintmax_t>(length));
    EXPECT_EQ(failure_of(path).code(), ErrorCode::invalid_input) << "length " << length;
  }
}

// Fuzz: random byte changes in the header, metadata and tensor table of a small GGUF never crash;
// whatever parses still holds tensors inside the file.
TEST(GgufInspectionFuzz, CorruptedHeadersNeverCrash) {
  TempDir dir;
  const auto good = dir / "good.gguf";
  testing::write_bare_gguf(good, 3);
  const std::string original = testing::file_bytes(good);
  const auto path = dir / "corrupt.gguf";
  std::mt19937 rng(7);
  const std::size_t header_bytes = original.size() - 3 * 512;
  std::uniform_int_distribution<std::size_t> where(0, header_bytes - 1);
  std::uniform_int_distribution<int> byte(0, 255);
  std::uniform_int_distribution<int> how_many(1, 4);
  int parsed = 0;
  for (int trial = 0; trial < 1000; ++trial) {
    std::string bytes = original;
    for (int k = how_many(rng); k > 0; --k) bytes[where(rng)] = static_cast<char>(byte(rng));
    testing::write_bytes(path, bytes);
    auto got = inspect_gguf(path);
    if (got) {
      ++parsed;
      EXPECT_GT(got->n_tensors, 0);
      EXPECT_LE(got->data_offset + got->model.size_bytes, got->file_bytes);
    }
  }
  RecordProperty("parsed", parsed);
}

}  // namespace
}  // namespace ecocompute::engine
