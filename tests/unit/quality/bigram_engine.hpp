// BigramEngine: a fake Engine whose logits at each position depend only on the token there, so every
// score the probe computes can be worked out by hand.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/engine.hpp"

namespace ecocompute::quality::testing {

/// Returns the logits ln p of a probability row, so that softmax(logits) = p.
inline std::vector<float> log_row(std::initializer_list<double> probabilities) {
  std::vector<float> row;
  for (double p : probabilities) row.push_back(static_cast<float>(std::log(p)));
  return row;
}

/// Letters 'a', 'b', 'c' … are tokens 0, 1, 2 …; whitespace is skipped; anything else fails to tokenize.
/// The logits after token t are rows[t]. Failures are injected by call count.
class BigramEngine final : public engine::Engine {
 public:
  BigramEngine(std::string gguf_type, std::vector<std::vector<float>> rows, engine::Token bos = 2)
      : rows_(std::move(rows)), bos_(bos) {
    info_.gguf_type = std::move(gguf_type);
    info_.name = "bigram";
    info_.n_vocab = static_cast<std::int32_t>(rows_.size());
  }

  // Injected faults, each on the given 1-based evaluate() call (0: never).
  int fail_on_call = 0;       ///< hands over half the positions, then returns an engine error
  int drop_last_on_call = 0;  ///< omits the last position's logits and succeeds
  int nan_on_call = 0;        ///< hands NaN logits for position 1
  std::uint32_t n_ctx = 4096;
  char first_letter = 'a';  ///< tokenize maps this letter to token 0

  std::vector<std::vector<engine::Token>> evaluated;  ///< every window evaluated, in order

  const engine::ModelInfo& model() const override { return info_; }
  engine::EngineDescription describe() const override {
    engine::EngineDescription d;
    d.name = "bigram";
    d.n_ctx = n_ctx;
    return d;
  }

  Result<std::vector<engine::Token>> tokenize(std::string_view text, bool add_bos) const override {
    std::vector<engine::Token> tokens;
    if (add_bos && bos_ >= 0) tokens.push_back(bos_);
    for (char ch : text) {
      if (ch == ' ' || ch == '\n') continue;
      const int id = ch - first_letter;
      if (id < 0 || id >= info_.n_vocab) {
        return unexpected(ErrorCode::invalid_input, std::string("no token for '") + ch + "'");
      }
      tokens.push_back(id);
    }
    return tokens;
  }
  engine::Token bos() const override { return bos_; }

  Result<void> reset() override { return {}; }
  Result<engine::WorkStats> prefill(std::span<const engine::Token> tokens) override {
    return engine::WorkStats{static_cast<std::int64_t>(tokens.size()), Seconds{0.0}};
  }
  Result<engine::WorkStats> decode(std::int64_t n_tokens) override {
    return engine::WorkStats{n_tokens, Seconds{0.0}};
  }

  Result<void> evaluate(std::span<const engine::Token> tokens, const engine::LogitsSink& sink) override {
    const int call = static_cast<int>(evaluated.size()) + 1;
    evaluated.emplace_back(tokens.begin(), tokens.end());
    auto size = static_cast<std::int64_t>(tokens.size());
    if (call == fail_on_call) {
      for (std::int64_t p = 0; p < size / 2; ++p)
        sink(p, rows_[static_cast<std::size_t>(tokens[static_cast<std::size_t>(p)])]);
      return unexpected(ErrorCode::engine, "fake device lost");
    }
    if (call == drop_last_on_call) --size;
    for (std::int64_t p = 0; p < size; ++p) {
      const auto& row = rows_[static_cast<std::size_t>(tokens[static_cast<std::size_t>(p)])];
      if (call == nan_on_call && p == 1) {
        std::vector<float> bad(row.size(), std::numeric_limits<float>::quiet_NaN());
        sink(p, bad);
      } else {
        sink(p, row);
      }
    }
    return {};
  }
  void synchronize() override {}

 private:
  engine::ModelInfo info_;
  std::vector<std::vector<float>> rows_;
  engine::Token bos_;
};

}  // namespace ecocompute::quality::testing
