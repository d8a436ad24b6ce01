// LlamaEngine: the in-process llama.cpp implementation of Engine.
#pragma once

#include <memory>
#include <vector>

#include "engine/device_selection.hpp"
#include "engine/engine.hpp"
#include "engine/gguf_inspection.hpp"

struct llama_model;
struct llama_context;
struct llama_vocab;
struct llama_sampler;

namespace ecocompute::engine {

/// Runs a GGUF model in this process with llama.cpp: every layer on the chosen GPU by default, token
/// ids fed directly, greedy decoding by argmax over the last logits, taken inside the compute graph
/// (llama.cpp's backend greedy sampler, one per sequence) unless LoadOptions asks for the host. Not
/// thread-safe.
///
///   auto engine = open_llama_engine({.model = "model-Q4_K_M.gguf"});
///   if (!engine) return engine.error();
///   auto prompt = (*engine)->tokenize("The quick brown fox", /*add_bos=*/true);
///   (*engine)->prefill(*prompt);
///   (*engine)->decode(256);
class LlamaEngine final : public Engine {
 public:
  /// Validates the file (inspect_gguf), picks the device, loads the model and creates its context.
  /// Errors: not_found / invalid_input for the file (named), not_found for an unknown device,
  /// unavailable when the GPU has too little free memory for the weights, engine when llama.cpp
  /// cannot load the model or create the context.
  static Result<std::unique_ptr<LlamaEngine>> open(const LoadOptions& options);

  ~LlamaEngine() override;
  LlamaEngine(const LlamaEngine&) = delete;
  LlamaEngine& operator=(const LlamaEngine&) = delete;

  [[nodiscard]] const ModelInfo& model() const override { return inspection_.model; }
  [[nodiscard]] EngineDescription describe() const override;
  [[nodiscard]] Result<std::vector<Token>> tokenize(std::string_view text, bool add_bos) const override;
  [[nodiscard]] Token bos() const override;
  Result<void> reset() override;
  Result<WorkStats> prefill(std::span<const Token> tokens) override;
  Result<WorkStats> prefill_sequences(std::span<const Token> tokens, int n_sequences) override;
  Result<WorkStats> decode(std::int64_t n_tokens) override;
  Result<void> evaluate(std::span<const Token> tokens, const LogitsSink& sink) override;
  void synchronize() override;
  [[nodiscard]] std::span<const Token> last_generated() const override { return sequence_generated(0); }
  [[nodiscard]] std::span<const Token> sequence_generated(int sequence) const override;

  /// Returns what the file holds (type, tensor count, weights label …), as read before loading.
  [[nodiscard]] const GgufInspection& inspection() const { return inspection_; }
  /// Returns the number of positions now in the context (of each parallel sequence).
  [[nodiscard]] std::int64_t n_past() const { return n_past_; }

 private:
  LlamaEngine() = default;
  // Feeds tokens[0..n) at positions n_past_.. in n_batch chunks; `all_logits` asks for every position.
  Result<void> feed(std::span<const Token> tokens, bool all_logits, const LogitsSink* sink);
  Result<void> check_room(std::int64_t n_more, const char* what) const;
  // Gives every sequence its greedy sampler in the compute graph; where llama.cpp cannot run it there
  // (the tensor split), falls back to the host choice and says why in token_choice_note_.
  void attach_samplers();
  // Takes the samplers out of the graph, so every requested position's logits reach the host.
  void detach_samplers();
  // Returns the greedy choice for output row `output` (-1: the last) of the last llama_decode.
  Result<Token> chosen_token(std::int32_t output) const;

  LoadOptions options_;
  GgufInspection inspection_;
  std::vector<GpuDevice> gpus_;  // empty: CPU; several: the model split over them
  llama_model* model_ = nullptr;
  llama_context* ctx_ = nullptr;
  const llama_vocab* vocab_ = nullptr;
  std::int32_t n_vocab_ = 0;
  std::uint32_t n_ctx_ = 0;  // per sequence (llama_n_ctx_seq)
  std::uint32_t n_seq_max_ = 1;
  int n_sequences_ = 1;  // parallel sequences the last prefill made
  std::uint32_t n_batch_ = 0;
  int n_threads_ = 0;
  int n_gpu_layers_ = 0;
  std::int64_t n_past_ = 0;
  bool has_logits_ = false;  // the last position's logits are there to pick the next token from
  std::vector<std::vector<Token>> generated_;  // per sequence
  std::vector<Token> batch_tokens_;
  std::vector<std::int32_t> batch_pos_;
  std::vector<std::int8_t> batch_logits_;
  std::vector<std::int32_t> batch_n_seq_;
  std::vector<std::int32_t> seq_ids_;  // 0 … n_seq_max − 1, pointed at by batch_seq_
  std::vector<std::int32_t*> batch_seq_;
  TokenChoice token_choice_ = TokenChoice::host;  // what runs, after any fallback
  std::string token_choice_note_;
  std::vector<llama_sampler*> samplers_;  // one greedy chain per sequence; outlive ctx_
  bool samplers_attached_ = false;
};

/// Returns the greedy choice over one row of logits: the lowest token id holding the largest value
/// (as std::max_element), -1 for an empty row. What decode() runs each step; shared with bench/.
Token greedy_token(std::span<const float> logits);

/// Opens a LlamaEngine as an Engine (see LlamaEngine::open).
Result<std::unique_ptr<Engine>> open_llama_engine(const LoadOptions& options);

}  // namespace ecocompute::engine
