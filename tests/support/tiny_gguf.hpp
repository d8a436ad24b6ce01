// Test support: writes small GGUF files (a tiny random-weight Llama with a real tokenizer, and bare
// GGUFs with chosen metadata) and gives each test its own temporary folder.
#pragma once

#include <ggml.h>
#include <gguf.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

namespace ecocompute::engine::testing {

/// A temporary folder removed with everything in it when the object goes.
class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("ecocompute-engine-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

/// The llama.cpp source tree's SentencePiece Llama tokenizer (a vocab-only GGUF, 32000 tokens).
inline std::filesystem::path llama_spm_vocab() {
  // $ECOCOMPUTE_VOCAB_DIR where the source tree is not at hand (the GPU machine: scripts/device/).
  if (const char* dir = std::getenv("ECOCOMPUTE_VOCAB_DIR"); dir != nullptr && *dir != '\0') {
    return std::filesystem::path(dir) / "ggml-vocab-llama-spm.gguf";
  }
  return std::filesystem::path(ECOCOMPUTE_SOURCE_DIR) / "third_party/llama.cpp/models/ggml-vocab-llama-spm.gguf";
}

/// Shape of the tiny Llama. Parameter count with the 32000-token vocabulary:
///   token_embd + output: 2 × 64 × 32000 = 4,096,000
///   per layer: attn_norm 64 + q 64×64 + k 64×32 + v 64×32 + o 64×64 + ffn_norm 64 + gate/up 2 × 64×128
///              + down 128×64 = 64 + 4096 + 2048 + 2048 + 4096 + 64 + 16384 + 8192 = 36,992
///   output_norm 64;  total = 4,096,000 + 2 × 36,992 + 64 = 4,170,048
struct TinyLlamaShape {
  std::int64_t n_embd = 64;
  std::int64_t n_head = 4;
  std::int64_t n_head_kv = 2;
  std::int64_t n_ff = 128;
  std::int64_t n_layer = 2;
  std::uint32_t n_ctx_train = 512;
};
inline constexpr std::uint64_t kTinyLlamaParams = 4'170'048;
/// Elements in one-dimensional tensors (norms), always stored as F32: 2 × (64 + 64) + 64 = 320.
inline constexpr std::uint64_t kTinyLlamaNormParams = 320;

/// Owns a gguf_context plus the ggml_context holding its tensors until the file is written.
class GgufBuilder {
 public:
  explicit GgufBuilder(std::size_t data_bytes) {
    gguf_ = gguf_init_empty();
    ggml_init_params params{data_bytes + 1024 * ggml_tensor_overhead(), nullptr, false};
    ggml_ = ggml_init(params);
  }
  ~GgufBuilder() {
    gguf_free(gguf_);
    ggml_free(ggml_);
  }
  GgufBuilder(const GgufBuilder&) = delete;
  GgufBuilder& operator=(const GgufBuilder&) = delete;

  gguf_context* gguf() { return gguf_; }

  /// Adds a tensor of `type` (F32 or F16) filled with `value(i)` for element i.
  void add_tensor(const std::string& name, ggml_type type, std::vector<std::int64_t> ne,
                  const std::function<float(std::int64_t)>& value) {
    ggml_tensor* t = ne.size() == 1 ? ggml_new_tensor_1d(ggml_, type, ne[0]) : ggml_new_tensor_2d(ggml_, type, ne[0], ne[1]);
    ggml_set_name(t, name.c_str());
    const std::int64_t n = ggml_nelements(t);
    if (type == GGML_TYPE_F32) {
      auto* data = static_cast<float*>(t->data);
      for (std::int64_t i = 0; i < n; ++i) data[i] = value(i);
    } else if (type == GGML_TYPE_F16) {
      auto* data = static_cast<ggml_fp16_t*>(t->data);
      for (std::int64_t i = 0; i < n; ++i) data[i] = ggml_fp32_to_fp16(value(i));
    } else {
      throw std::invalid_argument("GgufBuilder writes F32 or F16 tensors only");
    }
    gguf_add_tensor(gguf_, t);
  }

  void write(const std::filesystem::path& path) {
    if (!gguf_write_to_file(gguf_, path.c_str(), false)) throw std::runtime_error("cannot write " + path.string());
  }

 private:
  gguf_context* gguf_ = nullptr;
  ggml_context* ggml_ = nullptr;
};

struct TinyLlamaOptions {
  ggml_type weight_type = GGML_TYPE_F32;  ///< type of the 2-D tensors (F32 or F16)
  std::string weights_label = "synthetic";  ///< ecocompute.weights ("" to leave it out)
  bool omit_output_norm = false;          ///< leave out a tensor llama.cpp requires
  std::uint32_t seed = 42;
};

/// Writes a tiny Llama-architecture GGUF with random weights and the real llama-spm tokenizer.
inline void write_tiny_llama(const std::filesystem::path& path, const TinyLlamaOptions& options = {},
                             const TinyLlamaShape& shape = {}) {
  gguf_init_params read{true, nullptr};
  gguf_context* vocab = gguf_init_from_file(llama_spm_vocab().c_str(), read);
  if (vocab == nullptr) throw std::runtime_error("cannot read " + llama_spm_vocab().string());
  const std::int64_t tokens_id = gguf_find_key(vocab, "tokenizer.ggml.tokens");
  const auto n_vocab = static_cast<std::int64_t>(gguf_get_arr_n(vocab, tokens_id));

  GgufBuilder b(static_cast<std::size_t>(kTinyLlamaParams) * 4 + (1 << 20));
  gguf_set_kv(b.gguf(), vocab);
  gguf_free(vocab);
  gguf_set_val_str(b.gguf(), "general.architecture", "llama");
  gguf_set_val_str(b.gguf(), "general.name", "tiny-llama-test");
  gguf_set_val_u32(b.gguf(), "general.file_type", options.weight_type == GGML_TYPE_F16 ? 1 : 0);
  if (!options.weights_label.empty()) gguf_set_val_str(b.gguf(), "ecocompute.weights", options.weights_label.c_str());
  gguf_set_val_u32(b.gguf(), "llama.context_length", shape.n_ctx_train);
  gguf_set_val_u32(b.gguf(), "llama.embedding_length", static_cast<std::uint32_t>(shape.n_embd));
  gguf_set_val_u32(b.gguf(), "llama.block_count", static_cast<std::uint32_t>(shape.n_layer));
  gguf_set_val_u32(b.gguf(), "llama.feed_forward_length", static_cast<std::uint32_t>(shape.n_ff));
  gguf_set_val_u32(b.gguf(), "llama.attention.head_count", static_cast<std::uint32_t>(shape.n_head));
  gguf_set_val_u32(b.gguf(), "llama.attention.head_count_kv", static_cast<std::uint32_t>(shape.n_head_kv));
  gguf_set_val_u32(b.gguf(), "llama.rope.dimension_count", static_cast<std::uint32_t>(shape.n_embd / shape.n_head));
  gguf_set_val_f32(b.gguf(), "llama.attention.layer_norm_rms_epsilon", 1e-5F);
  gguf_set_val_u32(b.gguf(), "llama.vocab_size", static_cast<std::uint32_t>(n_vocab));

  std::mt19937 rng(options.seed);
  std::uniform_real_distribution<float> uniform(-0.5F, 0.5F);
  const auto random = [&](std::int64_t) { return uniform(rng); };
  const auto ones = [](std::int64_t) { return 1.0F; };
  const std::int64_t n_embd_kv = shape.n_embd / shape.n_head * shape.n_head_kv;
  const ggml_type w = options.weight_type;
  b.add_tensor("token_embd.weight", w, {shape.n_embd, n_vocab}, random);
  for (std::int64_t l = 0; l < shape.n_layer; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    b.add_tensor(p + "attn_norm.weight", GGML_TYPE_F32, {shape.n_embd}, ones);
    b.add_tensor(p + "attn_q.weight", w, {shape.n_embd, shape.n_embd}, random);
    b.add_tensor(p + "attn_k.weight", w, {shape.n_embd, n_embd_kv}, random);
    b.add_tensor(p + "attn_v.weight", w, {shape.n_embd, n_embd_kv}, random);
    b.add_tensor(p + "attn_output.weight", w, {shape.n_embd, shape.n_embd}, random);
    b.add_tensor(p + "ffn_norm.weight", GGML_TYPE_F32, {shape.n_embd}, ones);
    b.add_tensor(p + "ffn_gate.weight", w, {shape.n_embd, shape.n_ff}, random);
    b.add_tensor(p + "ffn_up.weight", w, {shape.n_embd, shape.n_ff}, random);
    b.add_tensor(p + "ffn_down.weight", w, {shape.n_ff, shape.n_embd}, random);
  }
  if (!options.omit_output_norm) b.add_tensor("output_norm.weight", GGML_TYPE_F32, {shape.n_embd}, ones);
  b.add_tensor("output.weight", w, {shape.n_embd, n_vocab}, random);
  b.write(path);
}

/// Writes a small GGUF with no tokenizer: `n_tensors` F32 tensors of 32 × 4 elements
/// (512 bytes each) and general.file_type = `file_type` (negative: left out).
inline void write_bare_gguf(const std::filesystem::path& path, int n_tensors, int file_type = 0) {
  GgufBuilder b(static_cast<std::size_t>(n_tensors) * 512 + 4096);
  gguf_set_val_str(b.gguf(), "general.architecture", "llama");
  if (file_type >= 0) gguf_set_val_u32(b.gguf(), "general.file_type", static_cast<std::uint32_t>(file_type));
  for (int i = 0; i < n_tensors; ++i) {
    b.add_tensor("t" + std::to_string(i), GGML_TYPE_F32, {32, 4}, [i](std::int64_t k) { return static_cast<float>(i + k); });
  }
  b.write(path);
}

/// Returns a file's bytes.
inline std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// Writes `bytes` to `path`.
inline void write_bytes(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace ecocompute::engine::testing
