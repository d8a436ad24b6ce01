// Model shapes: the hyperparameters of named architectures, the tensors they imply and their count.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace ecocompute::modelgen {

/// The hyperparameters that fix a decoder's tensors, as written into a GGUF's `<arch>.*` keys.
struct ModelShape {
  std::string id;              ///< command-line name ("llama3-8b")
  std::string display_name;    ///< model it copies ("Llama-3-8B")
  std::string architecture;    ///< general.architecture: "llama" or "qwen2"
  std::string vocab;           ///< llama.cpp vocab file models/ggml-vocab-<vocab>.gguf; empty: own tokenizer
  std::uint32_t n_layer = 0;
  std::uint32_t n_embd = 0;       ///< hidden size
  std::uint32_t n_head = 0;       ///< query heads
  std::uint32_t n_head_kv = 0;    ///< key/value heads (grouped-query attention)
  std::uint32_t n_ff = 0;         ///< feed-forward (SwiGLU) width
  std::uint32_t n_vocab = 0;      ///< rows of the embedding and output matrices
  std::uint32_t n_ctx_train = 0;  ///< context length the model was trained for
  float rope_freq_base = 10000.0F;
  float norm_rms_eps = 1e-5F;
  bool tied_embeddings = false;  ///< output projection shares token_embd (no output.weight)
  bool qkv_bias = false;         ///< attention q/k/v projections have biases (Qwen2)
  bool test_only = false;        ///< a tiny shape for tests; not a real model

  /// Returns the per-head width (n_embd / n_head).
  [[nodiscard]] std::uint32_t head_dim() const noexcept { return n_head == 0 ? 0 : n_embd / n_head; }
};

/// What a tensor holds; decides its storage type (norms and biases stay F32) and its initial values.
enum class TensorRole { embedding, matrix, norm, bias };

/// One tensor of a model, by its GGUF name and dimensions (ne[0] is the row length, as in ggml).
struct TensorSpec {
  std::string name;
  std::vector<std::int64_t> ne;
  TensorRole role = TensorRole::matrix;

  /// Returns the number of elements.
  [[nodiscard]] std::int64_t n_elements() const noexcept;
};

/// Returns every shape `ecocompute synth --arch` knows, real ones first, then the test-only ones.
std::span<const ModelShape> known_shapes();

/// Returns the shape with command-line name `id`; the error lists the known names.
Result<ModelShape> find_shape(std::string_view id);

/// Checks that a shape can be built (heads divide the width, kv heads divide heads, nothing zero);
/// the error names the shape and the broken rule.
Result<void> validate_shape(const ModelShape& shape);

/// Returns the tensors llama.cpp loads for `shape`, in the order they are written.
std::vector<TensorSpec> tensor_specs(const ModelShape& shape);

/// Returns the number of parameters (elements of every tensor; a tied output counts once).
std::uint64_t parameter_count(const ModelShape& shape);

}  // namespace ecocompute::modelgen
