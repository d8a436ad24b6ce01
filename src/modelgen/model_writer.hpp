// ModelWriter: streams a GGUF model of a given shape with seeded random weights, tensor by tensor,
// so a 16 GB file never sits in memory; also reads tokenizers out of llama.cpp's vocab GGUFs.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/weights_label.hpp"
#include "modelgen/synthetic_model.hpp"
#include "util/result.hpp"

namespace ecocompute::modelgen {

/// llama.cpp token types (tokenizer.ggml.token_type), as llama-vocab.h numbers them.
enum class TokenType : std::int32_t { normal = 1, unknown = 2, control = 3, user_defined = 4, unused = 5, byte = 6 };

/// A tokenizer as GGUF stores it under `tokenizer.*`.
struct TokenizerSpec {
  std::string model;                      ///< tokenizer.ggml.model: "gpt2" (BPE) or "llama" (SentencePiece)
  std::string pre;                        ///< tokenizer.ggml.pre: pre-tokenizer name ("llama-bpe", "qwen2", "default")
  std::vector<std::string> tokens;
  std::vector<float> scores;              ///< one per token, or empty (BPE vocabs have none)
  std::vector<std::int32_t> token_types;  ///< one per token (TokenType values)
  std::vector<std::string> merges;        ///< BPE merges, or empty
  std::optional<std::uint32_t> bos_id;
  std::optional<std::uint32_t> eos_id;
  std::optional<std::uint32_t> unknown_id;
  std::optional<std::uint32_t> padding_id;
  std::optional<bool> add_bos;
  std::optional<bool> add_eos;
  std::optional<bool> add_space_prefix;
  std::string chat_template;  ///< empty: none
};

/// Reads the `tokenizer.*` keys of a GGUF (for instance llama.cpp's models/ggml-vocab-qwen2.gguf).
/// Errors: not_found for a missing file, invalid_input for a malformed one or one without tokens.
Result<TokenizerSpec> read_tokenizer(const std::filesystem::path& gguf);

/// Appends "[PAD<i>]" tokens of type unused until the vocabulary has `n_vocab` tokens, as llama.cpp's
/// converter does for models whose embedding has more rows than the tokenizer has tokens.
void pad_tokenizer(TokenizerSpec& tokenizer, std::size_t n_vocab);

/// Finds llama.cpp's vocab file ggml-vocab-<vocab>.gguf in, in order: `vocab_dir` when not empty,
/// $ECOCOMPUTE_VOCAB_DIR, <data dir>/vocab, <data dir>/../third_party/llama.cpp/models.
/// The error lists every folder searched.
Result<std::filesystem::path> find_vocab_file(std::string_view vocab, const std::filesystem::path& vocab_dir);

/// Storage type of the 2-D weights; 1-D tensors (norms, biases) are always F32, as in llama.cpp's files.
enum class WeightType { f32, f16, bf16 };

/// Parses "f32" | "f16" | "bf16" (case-insensitive); the error names the value.
Result<WeightType> parse_weight_type(std::string_view text);
std::string_view to_string(WeightType type) noexcept;

/// How far a write has got, reported after each tensor.
struct WriteProgress {
  std::uint64_t bytes_written = 0;
  std::uint64_t bytes_total = 0;
  std::size_t tensors_written = 0;
  std::size_t n_tensors = 0;
  std::string_view tensor_name;  ///< the tensor just written
};
using WriteProgressSink = std::function<void(const WriteProgress&)>;

/// Everything that decides the bytes of a written model.
struct ModelWriteRequest {
  ModelShape shape;
  TokenizerSpec tokenizer;         ///< padded to shape.n_vocab when shorter; longer is an error
  WeightType type = WeightType::f16;
  std::uint64_t seed = 0;          ///< same seed, shape and type: same bytes
  float init_std = 0.02F;          ///< standard deviation of matrix and bias entries (uniform)
  float embedding_std = 0.0F;      ///< standard deviation of token_embd entries; 0: init_std
  std::string name;                ///< general.name
  std::string weights;             ///< value of ecocompute.weights ("synthetic" …); empty: key omitted
  std::vector<std::pair<std::string, std::string>> extra_metadata;  ///< more string keys
  unsigned n_threads = 0;          ///< threads generating weights; 0: hardware concurrency
  WriteProgressSink on_progress;   ///< may be empty
};

/// What was written.
struct ModelWriteSummary {
  std::filesystem::path path;
  std::uint64_t n_params = 0;
  std::uint64_t file_bytes = 0;
  std::size_t n_tensors = 0;
};

/// Writes the model to `out` through `<out>.partial`, renamed into place only when complete. Weights
/// are generated chunk by chunk from a counter-based generator, so memory stays at a few tens of MB
/// and the bytes do not depend on the thread count. Errors: invalid_argument for a bad shape or
/// tokenizer, io when the folder is not writable or lacks space (checked before writing).
Result<ModelWriteSummary> write_model(const std::filesystem::path& out, const ModelWriteRequest& request);

/// Options of `ecocompute synth`.
struct SynthOptions {
  std::string arch;                  ///< a known_shapes() id
  WeightType type = WeightType::f16;
  std::uint64_t seed = 0;
  std::filesystem::path vocab_dir;   ///< where ggml-vocab-*.gguf lie; empty: find_vocab_file's search
  WriteProgressSink on_progress;
  /// Keep only the first `layers` repeating layers (0: all). Every matrix keeps the full model's
  /// shape, so each kernel a decode step launches is the full model's: for profiling kernels, not
  /// for energy per token (the model is named so).
  std::uint32_t layers = 0;
};

/// Writes a model of a named real shape with random weights and the real tokenizer, marked
/// ecocompute.weights = "synthetic" and named "synthetic <model> shape".
Result<ModelWriteSummary> write_synthetic_model(const std::filesystem::path& out, const SynthOptions& options);

}  // namespace ecocompute::modelgen
