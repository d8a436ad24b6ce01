// FakeEngine: an Engine with deterministic tokens and logits, scripted time per token and scripted
// failures, for tests of everything that drives an engine. No model, no device, no real time.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/engine.hpp"
#include "util/result.hpp"
#include "util/units.hpp"

namespace ecocompute::fakes {

/// How a FakeEngine behaves. Work takes `time per token` of fake time (reported in WorkStats and
/// handed to the work sink, which a test wires to a FakeDevice) at the given power.
struct FakeEngineScript {
  engine::ModelInfo model;                   ///< returned by model(); gguf_type defaults to "F16"
  engine::EngineDescription description{"fake", "0", "fake-commit", "fake", "fake-device", 0, 4096, 512, 1, false, "", ""};
  std::int32_t n_vocab = 64;
  engine::Token bos_token = 1;               ///< -1: the vocab has no BOS
  std::int64_t n_ctx = 4096;                 ///< prefill/decode past this fails, as llama.cpp does
  Seconds prefill_time_per_token{0.001};
  Seconds decode_time_per_token{0.01};
  Watts prefill_power{300.0};
  Watts decode_power{400.0};
  /// A decode step of B parallel sequences (B > 1): its time and power by B. A B not listed takes
  /// decode_time_per_token per step at decode_power, as one sequence does.
  struct BatchedStep {
    Seconds time_per_step{0.0};
    Watts power{0.0};
  };
  std::map<int, BatchedStep> batched_decode;
  int max_sequences = 512;                   ///< prefill_sequences() above this fails
};

/// A deterministic Engine. tokenize() maps each byte b to 2 + b % (n_vocab − 2) after an optional
/// BOS; greedy decoding picks next(t) = (7 t + 3) mod n_vocab after the last token; logits of a
/// position are −|j − next(token)| so the argmax is next(token). Not thread-safe.
///
///   FakeEngineScript script;
///   script.decode_time_per_token = Seconds{0.005};
///   FakeEngine engine(script);
///   engine.fail_call("decode", 3, "out of memory");  // the 3rd decode() call fails
class FakeEngine final : public engine::Engine {
 public:
  /// Receives each piece of work: its fake duration and power.
  using WorkSink = std::function<void(Seconds duration, Watts power)>;

  explicit FakeEngine(FakeEngineScript script, WorkSink sink = {}) : script_(std::move(script)), sink_(std::move(sink)) {
    if (script_.model.gguf_type.empty()) script_.model.gguf_type = "F16";
    if (script_.model.n_vocab == 0) script_.model.n_vocab = script_.n_vocab;
  }

  /// Makes the `call`-th (1-based) call of `operation` ("reset", "prefill", "decode", "evaluate",
  /// "tokenize") fail with an engine error carrying `message`.
  void fail_call(std::string operation, int call, std::string message) {
    failures_[{std::move(operation), call}] = std::move(message);
  }
  /// Makes every call of `operation` from the `call`-th on fail.
  void fail_from(std::string operation, int call, std::string message) {
    failures_from_[std::move(operation)] = {call, std::move(message)};
  }

  /// Called before each generated token with the count generated so far (e.g. to press Ctrl-C mid-decode).
  std::function<void(std::int64_t)> on_decode_token;

  /// Returns how many times `operation` was called.
  [[nodiscard]] int calls(std::string_view operation) const {
    const auto it = calls_.find(std::string(operation));
    return it == calls_.end() ? 0 : it->second;
  }
  [[nodiscard]] int synchronize_calls() const { return synchronize_calls_; }
  [[nodiscard]] const std::vector<engine::Token>& context() const { return context_; }
  [[nodiscard]] std::int64_t tokens_generated() const { return tokens_generated_; }
  [[nodiscard]] std::int64_t tokens_prefilled() const { return tokens_prefilled_; }
  /// Returns the parallel sequences the last prefill made.
  [[nodiscard]] int sequences() const { return sequences_; }
  [[nodiscard]] const FakeEngineScript& script() const { return script_; }

  /// Returns the greedy successor of `token`.
  [[nodiscard]] engine::Token next(engine::Token token) const {
    return static_cast<engine::Token>((7 * static_cast<std::int64_t>(token) + 3) % script_.n_vocab);
  }

  [[nodiscard]] const engine::ModelInfo& model() const override { return script_.model; }
  [[nodiscard]] engine::EngineDescription describe() const override { return script_.description; }

  [[nodiscard]] Result<std::vector<engine::Token>> tokenize(std::string_view text, bool add_bos) const override {
    if (auto failure = check_const("tokenize")) return *failure;
    std::vector<engine::Token> tokens;
    if (add_bos && script_.bos_token >= 0) tokens.push_back(script_.bos_token);
    for (unsigned char byte : text) {
      tokens.push_back(static_cast<engine::Token>(2 + byte % (script_.n_vocab - 2)));
    }
    return tokens;
  }
  [[nodiscard]] engine::Token bos() const override { return script_.bos_token; }

  Result<void> reset() override {
    if (auto failure = check("reset")) return *failure;
    context_.clear();
    last_generated_.clear();
    sequences_ = 1;
    return {};
  }

  Result<engine::WorkStats> prefill(std::span<const engine::Token> tokens) override {
    if (auto failure = check("prefill")) return *failure;
    if (static_cast<std::int64_t>(context_.size() + tokens.size()) > script_.n_ctx) {
      return unexpected(ErrorCode::engine, "fake engine: context overflow in prefill");
    }
    context_.insert(context_.end(), tokens.begin(), tokens.end());
    tokens_prefilled_ += static_cast<std::int64_t>(tokens.size());
    sequences_ = 1;
    return work(static_cast<std::int64_t>(tokens.size()), script_.prefill_time_per_token, script_.prefill_power);
  }

  /// As the real engine: the prompt is computed once; the sequences are identical copies, so one
  /// context stands for all of them and decode() generates the same tokens in each.
  Result<engine::WorkStats> prefill_sequences(std::span<const engine::Token> tokens, int n_sequences) override {
    if (n_sequences < 1 || n_sequences > script_.max_sequences) {
      return unexpected(ErrorCode::invalid_argument, "fake engine: sequences out of range");
    }
    auto stats = prefill(tokens);
    if (stats) sequences_ = n_sequences;
    return stats;
  }
  Result<engine::WorkStats> decode(std::int64_t n_tokens) override {
    if (auto failure = check("decode")) return *failure;
    if (context_.empty()) return unexpected(ErrorCode::engine, "fake engine: decode with an empty context");
    if (static_cast<std::int64_t>(context_.size()) + n_tokens > script_.n_ctx) {
      return unexpected(ErrorCode::engine, "fake engine: context overflow in decode");
    }
    last_generated_.clear();
    const auto batched = script_.batched_decode.find(sequences_);
    const bool scripted = sequences_ > 1 && batched != script_.batched_decode.end();
    const Seconds step_time = scripted ? batched->second.time_per_step : script_.decode_time_per_token;
    const Watts step_power = scripted ? batched->second.power : script_.decode_power;
    const std::int64_t per_step = sequences_;
    for (std::int64_t i = 0; i < n_tokens; ++i) {
      // As the real engine: the interrupt is read before every step; the work done so far is spent.
      if (interrupted()) {
        (void)steps(i, per_step, step_time, step_power);
        return interrupted_error("decode");
      }
      if (on_decode_token) on_decode_token(tokens_generated_ + i * per_step);
      context_.push_back(next(context_.back()));
      last_generated_.push_back(context_.back());
    }
    tokens_generated_ += n_tokens * per_step;
    return steps(n_tokens, per_step, step_time, step_power);
  }

  Result<void> evaluate(std::span<const engine::Token> tokens, const engine::LogitsSink& sink) override {
    if (auto failure = check("evaluate")) return *failure;
    if (static_cast<std::int64_t>(tokens.size()) > script_.n_ctx) {
      return unexpected(ErrorCode::engine, "fake engine: context overflow in evaluate");
    }
    context_.assign(tokens.begin(), tokens.end());
    std::vector<float> logits(static_cast<std::size_t>(script_.n_vocab));
    for (std::size_t position = 0; position < tokens.size(); ++position) {
      const engine::Token best = next(tokens[position]);
      for (std::int32_t j = 0; j < script_.n_vocab; ++j) {
        logits[static_cast<std::size_t>(j)] = -static_cast<float>(std::abs(j - best));
      }
      sink(static_cast<std::int64_t>(position), logits);
    }
    (void)work(static_cast<std::int64_t>(tokens.size()), script_.prefill_time_per_token, script_.prefill_power);
    return {};
  }

  void synchronize() override { ++synchronize_calls_; }

  [[nodiscard]] std::span<const engine::Token> last_generated() const override { return last_generated_; }
  [[nodiscard]] std::span<const engine::Token> sequence_generated(int sequence) const override {
    if (sequence < 0 || sequence >= sequences_) return {};
    return last_generated_;
  }

 private:
  std::optional<Error> check(const std::string& operation) {
    const int call = ++calls_[operation];
    return failure_for(operation, call);
  }
  std::optional<Error> check_const(const std::string& operation) const {
    const int call = ++calls_[operation];
    return failure_for(operation, call);
  }
  std::optional<Error> failure_for(const std::string& operation, int call) const {
    if (const auto it = failures_.find({operation, call}); it != failures_.end()) {
      return Error{ErrorCode::engine, it->second};
    }
    if (const auto it = failures_from_.find(operation); it != failures_from_.end() && call >= it->second.first) {
      return Error{ErrorCode::engine, it->second.second};
    }
    return std::nullopt;
  }
  engine::WorkStats work(std::int64_t tokens, Seconds per_token, Watts power) {
    const Seconds elapsed = per_token * static_cast<double>(tokens);
    if (sink_) sink_(elapsed, power);
    return engine::WorkStats{tokens, elapsed};
  }

  // `n_steps` decode steps of `per_step` tokens each.
  engine::WorkStats steps(std::int64_t n_steps, std::int64_t per_step, Seconds step_time, Watts power) {
    const Seconds elapsed = step_time * static_cast<double>(n_steps);
    if (sink_) sink_(elapsed, power);
    return engine::WorkStats{n_steps * per_step, elapsed};
  }

  FakeEngineScript script_;
  WorkSink sink_;
  std::map<std::pair<std::string, int>, std::string> failures_;
  std::map<std::string, std::pair<int, std::string>> failures_from_;
  mutable std::map<std::string, int> calls_;
  std::vector<engine::Token> context_;
  std::vector<engine::Token> last_generated_;
  std::int64_t tokens_generated_ = 0;
  std::int64_t tokens_prefilled_ = 0;
  int synchronize_calls_ = 0;
  int sequences_ = 1;
};

}  // namespace ecocompute::fakes
