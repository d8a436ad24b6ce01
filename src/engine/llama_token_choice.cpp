// LlamaEngine's greedy choice of the next token: llama.cpp's backend greedy sampler in the compute
// graph (only token ids come back per step), or the host's search over each logits row.
#include <llama.h>

#include <fmt/format.h>

#include "engine/llama_engine.hpp"

namespace ecocompute::engine {

void LlamaEngine::attach_samplers() {
  if (samplers_attached_ || token_choice_ != TokenChoice::device) return;
  // New chains each time: llama.cpp initializes a chain's backend state once, when it is attached.
  samplers_.reserve(n_seq_max_);
  for (std::uint32_t s = 0; s < n_seq_max_; ++s) {
    llama_sampler* chain = llama_sampler_chain_init(llama_sampler_chain_default_params());
    llama_sampler_chain_add(chain, llama_sampler_init_greedy());
    samplers_.push_back(chain);
  }
  for (std::uint32_t s = 0; s < n_seq_max_; ++s) {
    if (!llama_set_sampler(ctx_, static_cast<llama_seq_id>(s), samplers_[s])) {
      // llama.cpp runs no backend sampler with the tensor split (and for a backend without argmax).
      detach_samplers();
      token_choice_ = TokenChoice::host;
      token_choice_note_ = fmt::format("llama.cpp could not run the greedy choice in the compute graph for sequence {} "
                                       "({}), so each step's logits rows are searched on the host",
                                       s, gpus_.size() > 1 && options_.split_mode == SplitMode::tensor ? "llama.cpp has no backend sampling with the tensor split"
                                                                                  : "llama.cpp refused the sampler");
      return;
    }
  }
  samplers_attached_ = true;
}

void LlamaEngine::detach_samplers() {
  for (std::uint32_t s = 0; s < samplers_.size(); ++s) llama_set_sampler(ctx_, static_cast<llama_seq_id>(s), nullptr);
  for (llama_sampler* sampler : samplers_) llama_sampler_free(sampler);
  samplers_.clear();
  samplers_attached_ = false;
}

Result<Token> LlamaEngine::chosen_token(std::int32_t output) const {
  if (samplers_attached_) {
    const llama_token token = llama_get_sampled_token_ith(ctx_, output);
    if (token == LLAMA_TOKEN_NULL) {
      return unexpected(ErrorCode::engine, fmt::format("llama.cpp chose no token for output {} on the device", output));
    }
    return token;
  }
  const float* logits = llama_get_logits_ith(ctx_, output);
  if (logits == nullptr) return unexpected(ErrorCode::engine, fmt::format("llama.cpp returned no logits for output {}", output));
  return greedy_token(std::span<const float>(logits, static_cast<std::size_t>(n_vocab_)));
}

}  // namespace ecocompute::engine
