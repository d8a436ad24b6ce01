// Engine: the thing measured. Load a model at a precision, prefill, decode, read logits, synchronize.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/split_mode.hpp"
#include "util/result.hpp"
#include "util/units.hpp"

namespace ecocompute::engine {

using Token = std::int32_t;

/// What is loaded: the model file and its weight format, as read from the file itself.
struct ModelInfo {
  std::filesystem::path path;
  std::string name;              ///< general.name, else the file stem
  std::string architecture;      ///< general.architecture ("llama", "qwen2" …)
  std::string gguf_type;         ///< weight format as a llama.cpp ftype name ("F16", "Q4_K_M" …)
  std::string precision_class;   ///< "16-bit", "8-bit", "6-bit", "5-bit", "4-bit", "3-bit", "2-bit"
  double bits_per_weight = 0.0;  ///< file's tensor bytes × 8 / parameter count, measured from the file
  std::uint64_t n_params = 0;
  std::uint64_t size_bytes = 0;  ///< bytes of tensor data
  std::int32_t n_vocab = 0;
  std::uint32_t n_ctx_train = 0;
  bool synthetic_weights = false;  ///< written by `ecocompute synth` (random weights: no quality)
};

/// How the engine runs, for the report's engine dimension.
struct EngineDescription {
  std::string name;         ///< "llama.cpp", or "openai-endpoint"
  std::string version;      ///< release tag
  std::string commit;       ///< source commit (+ patch)
  std::string backend;      ///< kernel path: "CUDA", "CPU" …
  std::string device;       ///< e.g. "CUDA0 (NVIDIA H200)" or "CPU"
  int n_gpu_layers = 0;     ///< layers offloaded
  std::uint32_t n_ctx = 0;
  std::uint32_t n_batch = 0;
  int n_threads = 0;
  bool flash_attention = false;
  /// Where the greedy choice of the next token runs: "device" (inside the compute graph, on the
  /// device that computes the output layer; only token ids reach the host) or "host" (every
  /// sequence's logits row copied to the host and searched there). Empty: not this engine's choice.
  std::string token_choice;
  std::string token_choice_note;  ///< why "host" when "device" was asked for
};

/// Where the greedy choice of the next token runs (LoadOptions::token_choice).
enum class TokenChoice {
  device,  ///< in the compute graph: at batch B only B token ids come back per step
  host,    ///< B rows of n_vocab logits copied back and searched on the CPU per step
};

/// Returns "device" or "host".
[[nodiscard]] std::string_view to_string(TokenChoice choice) noexcept;
/// Parses "device" / "host"; any other text is an invalid_argument error naming it.
[[nodiscard]] Result<TokenChoice> parse_token_choice(std::string_view text);

struct LoadOptions {
  std::filesystem::path model;
  int n_gpu_layers = -1;         ///< -1: every layer on the GPU when there is one
  std::uint32_t n_ctx = 4096;    ///< context size per sequence (tokens)
  /// Most parallel sequences one decode runs (llama.cpp's n_seq_max); the context then holds n_ctx
  /// tokens for each of them, so a batched decode has the same room per sequence as batch 1.
  std::uint32_t n_sequences = 1;
  std::uint32_t n_batch = 2048;  ///< logical batch for prefill / evaluation
  int n_threads = 0;             ///< 0: hardware concurrency
  /// The GPUs to use, each a "GPU-xxxxxxxx-…" UUID or a PCI bus id: none = the first visible, one = that
  /// GPU, several = the model split over exactly those (split_mode), the first holding the output.
  std::vector<std::string> device_uuids;
  SplitMode split_mode = SplitMode::layer;  ///< with several GPUs
  bool flash_attention = true;   ///< use llama.cpp's fused flash-attention kernels
  /// The greedy choice on the device by default: at batch 64 of a 128k vocabulary, copying and
  /// searching 64 logits rows on the CPU each step made the decode host-bound (the board drew 186 W
  /// against 463 W at batch 1), so the host's search, not the engine, was measured.
  TokenChoice token_choice = TokenChoice::device;
};

/// Counts and timing of one piece of engine work, timed on the host around synchronized work.
struct WorkStats {
  std::int64_t tokens = 0;  ///< every token processed: for a batched decode, sequences × steps
  Seconds elapsed{0.0};
};

/// Receives the logits of one evaluated position: `position` indexes the evaluated tokens,
/// `logits` has n_vocab entries and is valid only during the call.
using LogitsSink = std::function<void(std::int64_t position, std::span<const float> logits)>;

/// A loaded model with its context. Not thread-safe: one thread drives it.
class Engine {
 public:
  virtual ~Engine() = default;

  [[nodiscard]] virtual const ModelInfo& model() const = 0;
  [[nodiscard]] virtual EngineDescription describe() const = 0;

  /// Tokenizes text with the model's tokenizer; `add_bos` prepends BOS when the vocab has one.
  [[nodiscard]] virtual Result<std::vector<Token>> tokenize(std::string_view text, bool add_bos) const = 0;
  /// Returns the BOS token, or -1 when the vocab has none.
  [[nodiscard]] virtual Token bos() const = 0;

  /// Forgets the context (KV cache); the next prefill starts at position 0.
  virtual Result<void> reset() = 0;
  /// Feeds `tokens` in batches of n_batch and keeps the last position's logits; returns when the
  /// device has finished.
  virtual Result<WorkStats> prefill(std::span<const Token> tokens) = 0;
  /// Feeds `tokens` once and makes `n_sequences` parallel sequences that each start with that prompt,
  /// so the next decode() advances all of them in one batch per step. WorkStats counts the prompt's
  /// tokens once (they were computed once). An engine that cannot run parallel sequences accepts 1 only.
  virtual Result<WorkStats> prefill_sequences(std::span<const Token> tokens, int n_sequences) {
    if (n_sequences != 1) {
      return unexpected(ErrorCode::invalid_argument,
                        "this engine decodes one sequence at a time (asked for " + std::to_string(n_sequences) + ")");
    }
    return prefill(tokens);
  }
  /// Generates `n_tokens` greedily after the current context for every sequence the last prefill
  /// made, one token per sequence per step, all sequences in one batch; returns when the device has
  /// finished. WorkStats::tokens counts every generated token (sequences × n_tokens). Fails (does
  /// not truncate) when the context would overflow.
  virtual Result<WorkStats> decode(std::int64_t n_tokens) = 0;
  /// Evaluates `tokens` from position 0 of a fresh context and hands every position's logits to
  /// `sink` in order (for the quality probe).
  virtual Result<void> evaluate(std::span<const Token> tokens, const LogitsSink& sink) = 0;
  /// Waits for all queued device work.
  virtual void synchronize() = 0;
  /// Returns the tokens the last decode() generated, in order (empty before the first decode or
  /// after a reset); valid until the next call on the engine.
  [[nodiscard]] virtual std::span<const Token> last_generated() const { return {}; }
  /// Returns the tokens the last decode() generated for one parallel sequence (0 is the one
  /// last_generated() returns); empty for a sequence the last prefill did not make.
  [[nodiscard]] virtual std::span<const Token> sequence_generated(int sequence) const {
    return sequence == 0 ? last_generated() : std::span<const Token>{};
  }

  /// Makes prefill, decode and evaluate stop early with a `cancelled` error once `*flag` is true,
  /// checked before every token or batch (a Ctrl-C then ends a window within one step, not one
  /// iteration). nullptr: never. The flag must outlive the engine's use of it.
  void set_interrupt(const std::atomic<bool>* flag) noexcept { interrupt_ = flag; }

 protected:
  /// Returns whether the interrupt flag is set.
  [[nodiscard]] bool interrupted() const noexcept {
    return interrupt_ != nullptr && interrupt_->load(std::memory_order_relaxed);
  }
  /// The error an interrupted call returns.
  [[nodiscard]] static Error interrupted_error(std::string_view what) {
    return Error{ErrorCode::cancelled, std::string(what) + " interrupted"};
  }

 private:
  const std::atomic<bool>* interrupt_ = nullptr;
};

}  // namespace ecocompute::engine
