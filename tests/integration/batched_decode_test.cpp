// Integration test of batched decode on the committed trained fixture, on the CPU: B parallel
// sequences started from one prompt and decoded one token each per step generate, each of them,
// the tokens batch 1 generates, and every generated token is counted.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "engine/llama_engine.hpp"
#include "support/data_paths.hpp"

namespace ecocompute::engine {
namespace {
using ::testing::HasSubstr;


std::unique_ptr<LlamaEngine> open_fixture(std::uint32_t n_sequences, TokenChoice choice = TokenChoice::device) {
  LoadOptions o;
  o.token_choice = choice;
  o.model = ecocompute::testing::kFixtureModel;
  o.n_gpu_layers = 0;
  o.n_ctx = 256;
  o.n_batch = 64;
  o.n_sequences = n_sequences;
  o.n_threads = 1;  // tests run two at a time on two cores; llama.cpp's workers spin at barriers
  auto engine = LlamaEngine::open(o);
  if (!engine) ADD_FAILURE() << engine.error().describe();
  return engine ? std::move(*engine) : nullptr;
}

std::vector<Token> tokens_of(std::span<const Token> span) { return {span.begin(), span.end()}; }

TEST(BatchedDecode, EverySequenceGeneratesWhatBatchOneGenerates) {
  constexpr int batch = 4;
  constexpr std::int64_t steps = 16;
  auto engine = open_fixture(batch);
  ASSERT_TRUE(engine);
  auto prompt = engine->tokenize("In the beginning God created the heaven and the earth.", true);
  ASSERT_TRUE(prompt) << prompt.error().describe();

  ASSERT_TRUE(engine->prefill(*prompt));
  auto single = engine->decode(steps);
  ASSERT_TRUE(single) << single.error().describe();
  EXPECT_EQ(single->tokens, steps);
  const std::vector<Token> reference = tokens_of(engine->last_generated());
  ASSERT_EQ(reference.size(), static_cast<std::size_t>(steps));

  ASSERT_TRUE(engine->reset());
  auto filled = engine->prefill_sequences(*prompt, batch);
  ASSERT_TRUE(filled) << filled.error().describe();
  EXPECT_EQ(filled->tokens, static_cast<std::int64_t>(prompt->size()));  // the prompt is computed once
  auto batched = engine->decode(steps);
  ASSERT_TRUE(batched) << batched.error().describe();
  EXPECT_EQ(batched->tokens, batch * steps);
  EXPECT_EQ(engine->n_past(), static_cast<std::int64_t>(prompt->size()) + steps);
  for (int s = 0; s < batch; ++s) {
    EXPECT_EQ(tokens_of(engine->sequence_generated(s)), reference) << "sequence " << s;
  }
  EXPECT_TRUE(engine->sequence_generated(batch).empty());

  // Back to one sequence after a reset: the batch-1 figures again.
  ASSERT_TRUE(engine->reset());
  ASSERT_TRUE(engine->prefill(*prompt));
  auto again = engine->decode(steps);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->tokens, steps);
  EXPECT_EQ(tokens_of(engine->last_generated()), reference);
}

// The greedy choice inside the compute graph (llama.cpp's backend sampler) and the host's search over
// each logits row pick the same tokens, at batch 1 and batch 4, and an evaluation in between (which
// takes the samplers out, so every position's logits reach the host) leaves both unchanged.
TEST(BatchedDecode, TheChoiceOnTheDeviceAndOnTheHostGenerateTheSameTokens) {
  constexpr int batch = 4;
  constexpr std::int64_t steps = 16;
  auto device = open_fixture(batch, TokenChoice::device);
  auto host = open_fixture(batch, TokenChoice::host);
  ASSERT_TRUE(device && host);
  EXPECT_EQ(device->describe().token_choice, "device");
  EXPECT_EQ(device->describe().token_choice_note, "");
  EXPECT_EQ(host->describe().token_choice, "host");
  auto prompt = device->tokenize("In the beginning God created the heaven and the earth.", true);
  ASSERT_TRUE(prompt) << prompt.error().describe();

  auto generate = [&](LlamaEngine& engine, int sequences) {
    EXPECT_TRUE(engine.reset());
    EXPECT_TRUE(engine.prefill_sequences(*prompt, sequences));
    auto decoded = engine.decode(steps);
    EXPECT_TRUE(decoded) << decoded.error().describe();
    std::vector<std::vector<Token>> out;
    for (int s = 0; s < sequences; ++s) out.push_back(tokens_of(engine.sequence_generated(s)));
    return out;
  };
  const auto reference = generate(*host, batch);
  ASSERT_EQ(reference.front().size(), static_cast<std::size_t>(steps));
  EXPECT_EQ(generate(*device, batch), reference);
  EXPECT_EQ(generate(*device, 1).front(), reference.front());

  // Every position's logits, identical to the host engine's (the first position's row compared whole).
  auto evaluate = [&](LlamaEngine& engine, std::vector<float>& first_row) {
    std::vector<Token> argmax;
    EXPECT_TRUE(engine.evaluate(*prompt, [&](std::int64_t position, std::span<const float> logits) {
      if (position == 0) first_row.assign(logits.begin(), logits.end());
      argmax.push_back(greedy_token(logits));
    }));
    return argmax;
  };
  std::vector<float> device_row, host_row;
  const std::vector<Token> device_argmax = evaluate(*device, device_row);
  EXPECT_EQ(device_argmax.size(), prompt->size());
  EXPECT_EQ(device_argmax, evaluate(*host, host_row));
  EXPECT_EQ(device_row, host_row);
  EXPECT_EQ(generate(*device, batch), reference);
}

TEST(BatchedDecode, EachSequenceHasTheWholeContextAndNoMoreSequencesThanTheContextHolds) {
  auto engine = open_fixture(2);
  ASSERT_TRUE(engine);
  EXPECT_EQ(engine->describe().n_ctx, 256U);  // per sequence
  const std::vector<Token> prompt(200, engine->bos() >= 0 ? engine->bos() : 1);
  auto too_many = engine->prefill_sequences(std::span<const Token>(prompt).first(4), 3);
  ASSERT_FALSE(too_many);
  EXPECT_EQ(too_many.error().code(), ErrorCode::invalid_argument);
  EXPECT_THAT(too_many.error().message(), HasSubstr("3 parallel sequences asked for"));

  ASSERT_TRUE(engine->prefill_sequences(prompt, 2));
  EXPECT_TRUE(engine->decode(56));  // 200 + 56 = 256: exactly fills each sequence's context
  auto overflow = engine->decode(1);
  ASSERT_FALSE(overflow);
  EXPECT_THAT(overflow.error().message(), HasSubstr("context overflow"));
}

}  // namespace
}  // namespace ecocompute::engine
