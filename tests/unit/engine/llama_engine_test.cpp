// Tests of LlamaEngine on the CPU with a tiny random-weight Llama and the real llama-spm tokenizer.
#include "engine/llama_engine.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "support/tiny_gguf.hpp"

namespace ecocompute::engine {
namespace {
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::TempDir;

// One tiny model for the whole binary: writing it takes longer than the tests that use it. It is written
// on first use inside a test, not in SetUpTestSuite: gtest reports a failing suite set-up as every test
// skipped, and ctest counts skipped as passed.
class LlamaEngineTest : public ::testing::Test {
 protected:
  static const std::filesystem::path& model_path() {
    static const TempDir dir;
    static const std::filesystem::path path = [] {
      std::filesystem::path p = dir / "tiny.gguf";
      testing::write_tiny_llama(p);
      return p;
    }();
    return path;
  }
  static LoadOptions cpu_options() {
    LoadOptions o;
    o.model = model_path();
    o.n_gpu_layers = 0;
    o.n_ctx = 256;
    o.n_batch = 16;
    o.n_threads = 1;  // the test machine is shared: spinning thread barriers stall under load
    return o;
  }
  static std::unique_ptr<LlamaEngine> open_cpu() {
    auto engine = LlamaEngine::open(cpu_options());
    if (!engine) ADD_FAILURE() << engine.error().describe();
    return engine ? std::move(*engine) : nullptr;
  }
  // Tokens 100, 101, … : any ids of the vocabulary serve, the model has no training.
  static std::vector<Token> prompt(std::size_t n) {
    std::vector<Token> tokens(n);
    std::iota(tokens.begin(), tokens.end(), 100);
    return tokens;
  }

  // Prefills `tokens`, decodes `n` and returns what was generated.
  static std::vector<Token> generate(Engine& engine, std::span<const Token> tokens, std::int64_t n) {
    if (auto filled = engine.prefill(tokens); !filled) ADD_FAILURE() << filled.error().describe();
    if (auto decoded = engine.decode(n); !decoded) ADD_FAILURE() << decoded.error().describe();
    return {engine.last_generated().begin(), engine.last_generated().end()};
  }

};

TEST_F(LlamaEngineTest, DescribesACpuRun) {
  auto engine = open_cpu();
  ASSERT_TRUE(engine);
  const EngineDescription d = engine->describe();
  EXPECT_EQ(d.name, "llama.cpp");
  EXPECT_EQ(d.backend, "CPU");
  EXPECT_EQ(d.device, "CPU");
  EXPECT_EQ(d.n_gpu_layers, 0);
  EXPECT_EQ(d.n_ctx, 256U);
  EXPECT_EQ(d.n_batch, 16U);
  EXPECT_EQ(d.n_threads, 1);
  EXPECT_TRUE(d.flash_attention);
  EXPECT_FALSE(d.commit.empty());
  EXPECT_EQ(engine->model().n_params, testing::kTinyLlamaParams);
  EXPECT_EQ(engine->model().gguf_type, "F32");
  EXPECT_TRUE(engine->model().synthetic_weights);
}

TEST_F(LlamaEngineTest, TokenizesLikeLlamaCppsReferenceOutput) {
  auto engine = open_cpu();
  ASSERT_TRUE(engine);
  // models/ggml-vocab-llama-spm.gguf.out: "Hello world" → 15043 3186; BOS of this vocab is 1.
  auto plain = engine->tokenize("Hello world", false);
  ASSERT_TRUE(plain);
  EXPECT_THAT(*plain, ElementsAre(15043, 3186));
  auto with_bos = engine->tokenize("Hello world", true);
  ASSERT_TRUE(with_bos);
  EXPECT_THAT(*with_bos, ElementsAre(1, 15043, 3186));
  EXPECT_EQ(engine->bos(), 1);
}

TEST_F(LlamaEngineTest, PrefillsInBatchesAndDecodesGreedily) {
  auto engine = open_cpu();
  ASSERT_TRUE(engine);
  const auto tokens = prompt(40);  // 40 tokens in batches of 16: 16 + 16 + 8
  auto filled = engine->prefill(tokens);
  ASSERT_TRUE(filled) << filled.error().describe();
  EXPECT_EQ(filled->tokens, 40);
  EXPECT_EQ(engine->n_past(), 40);
  auto decoded = engine->decode(10);
  ASSERT_TRUE(decoded) << decoded.error().describe();
  EXPECT_EQ(decoded->tokens, 10);
  EXPECT_EQ(engine->n_past(), 50);
  ASSERT_EQ(engine->last_generated().size(), 10U);
  for (const Token t : engine->last_generated()) {
    EXPECT_GE(t, 0);
    EXPECT_LT(t, 32000);
  }
}

TEST_F(LlamaEngineTest, GreedyDecodeIsDeterministic) {
  auto engine = open_cpu();
  ASSERT_TRUE(engine);
  const auto tokens = prompt(20);
  const std::vector<Token> first = generate(*engine, tokens, 12);
  ASSERT_EQ(first.size(), 12U);
  ASSERT_TRUE(engine->reset());
  EXPECT_EQ(engine->n_past(), 0);
  EXPECT_TRUE(engine->last_generated().empty());
  EXPECT_EQ(generate(*engine, tokens, 12), first);

  // A second engine on the same file generates the same tokens too.
  auto other = open_cpu();
  ASSERT_TRUE(other);
  EXPECT_EQ(generate(*other, tokens, 12), first);
}

TEST_F(LlamaEngineTest, EvaluateHandsEveryPositionInOrder) {
  auto engine = open_cpu();
  ASSERT_TRUE(engine);
  const auto tokens = prompt(37);  // 16 + 16 + 5
  std::vector<std::int64_t> positions;
  std::vector<Token> argmaxes;
  auto done = engine->evaluate(tokens, [&](std::int64_t position, std::span<const float> logits) {
    positions.push_back(position);
    EXPECT_EQ(logits.size(), 32000U);
    argmaxes.push_back(static_cast<Token>(std::max_element(logits.begin(), logits.end()) - logits.begin()));
  });
  ASSERT_TRUE(done) << done.error().describe();
  std::vector<std::int64_t> expected(37);
  std::iota(expected.begin(), expected.end(), 0);
  EXPECT_EQ(positions, expected);

  // Decoding after the evaluation continues from its last logits: the first generated token is the
  // argmax at the last evaluated position, and prefill of the same prompt agrees.
  ASSERT_TRUE(engine->decode(1));
  EXPECT_EQ(engine->last_generated()[0], argmaxes.back());
  ASSERT_TRUE(engine->reset());
  ASSERT_TRUE(engine->prefill(tokens));
  ASSERT_TRUE(engine->decode(1));
  EXPECT_EQ(engine->last_generated()[0], argmaxes.back());
}

TEST_F(LlamaEngineTest, DecodeFeedsEachGeneratedTokenBack) {
  auto engine = open_cpu();
  ASSERT_TRUE(engine);
  const auto tokens = prompt(8);
  const std::vector<Token> generated = generate(*engine, tokens, 6);
  ASSERT_EQ(generated.size(), 6U);
  // Evaluating prompt + generated[0..4] predicts generated[k] at position 7 + k, if decode fed the
  // tokens it chose at the right positions.
  std::vector<Token> sequence = tokens;
  sequence.insert(sequence.end(), generated.begin(), generated.end() - 1);
  std::vector<Token> predicted;
  ASSERT_TRUE(engine->evaluate(sequence, [&](std::int64_t position, std::span<const float> logits) {
    if (position >= 7) predicted.push_back(static_cast<Token>(std::max_element(logits.begin(), logits.end()) - logits.begin()));
  }));
  EXPECT_EQ(predicted, generated);
}

TEST_F(LlamaEngineTest, ContextOverflowIsAnErrorNotATruncation) {
  auto engine = open_cpu();
  ASSERT_TRUE(engine);
  ASSERT_TRUE(engine->prefill(prompt(200)));
  auto decoded = engine->decode(57);  // 200 + 57 = 257 > 256
  ASSERT_FALSE(decoded);
  EXPECT_EQ(decoded.error().code(), ErrorCode::invalid_argument);
  EXPECT_THAT(decoded.error().message(), HasSubstr("context overflow: a decode of 57 tokens needs 257 positions but the context holds 256"));
  EXPECT_EQ(engine->n_past(), 200);
  EXPECT_TRUE(engine->decode(56));  // exactly fills it

  auto too_long = engine->evaluate(prompt(257), [](std::int64_t, std::span<const float>) {});
  ASSERT_FALSE(too_long);
  EXPECT_THAT(too_long.error().message(), HasSubstr("context overflow: an evaluation of 257 tokens"));
}

TEST_F(LlamaEngineTest, MisuseIsAnError) {
  auto engine = open_cpu();
  ASSERT_TRUE(engine);
  auto no_prefill = engine->decode(1);
  ASSERT_FALSE(no_prefill);
  EXPECT_THAT(no_prefill.error().message(), HasSubstr("needs a prefill first"));
  auto empty = engine->prefill({});
  ASSERT_FALSE(empty);
  EXPECT_THAT(empty.error().message(), HasSubstr("empty prompt"));
  const std::vector<Token> bad{1, 32000};
  auto out_of_vocab = engine->prefill(bad);
  ASSERT_FALSE(out_of_vocab);
  EXPECT_THAT(out_of_vocab.error().message(), HasSubstr("token id 32000 at index 1 is outside the vocabulary (0..31999)"));
}

TEST_F(LlamaEngineTest, OpensThroughTheFactoryAsAnEngine) {
  auto engine = open_llama_engine(cpu_options());
  ASSERT_TRUE(engine) << engine.error().describe();
  EXPECT_EQ((*engine)->model().architecture, "llama");
  EXPECT_EQ((*engine)->describe().backend, "CPU");
}

TEST(LlamaEngineLoad, MissingTensorIsAnEngineErrorNamingTheFile) {
  TempDir dir;
  const auto path = dir / "no-output-norm.gguf";
  testing::write_tiny_llama(path, {.omit_output_norm = true});
  LoadOptions o;
  o.model = path;
  o.n_gpu_layers = 0;
  o.n_ctx = 256;
  auto engine = open_llama_engine(o);
  ASSERT_FALSE(engine);
  EXPECT_EQ(engine.error().code(), ErrorCode::engine);
  EXPECT_THAT(engine.error().message(), HasSubstr("llama.cpp could not load " + path.string()));
  EXPECT_THAT(engine.error().message(), HasSubstr("output_norm.weight"));
}

TEST(LlamaEngineLoad, BadFilesFailBeforeLlamaCppSeesThem) {
  LoadOptions o;
  o.model = testing::llama_spm_vocab();
  auto vocab_only = open_llama_engine(o);
  ASSERT_FALSE(vocab_only);
  EXPECT_THAT(vocab_only.error().message(), HasSubstr("has no tensors"));
  o.model = "/nonexistent/model.gguf";
  auto missing = open_llama_engine(o);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code(), ErrorCode::not_found);
}

TEST(LlamaEngineLoad, UnknownDeviceIsAnErrorNotAnotherDevice) {
  TempDir dir;
  const auto path = dir / "tiny.gguf";
  testing::write_bare_gguf(path, 1);
  LoadOptions o;
  o.model = path;
  o.device_uuids = {"0000:99:00.0"};  // a PCI bus id no device here has
  auto engine = open_llama_engine(o);
  ASSERT_FALSE(engine);
  EXPECT_EQ(engine.error().code(), ErrorCode::not_found);
  EXPECT_THAT(engine.error().message(), HasSubstr("GPU 0000:99:00.0"));
}

}  // namespace
}  // namespace ecocompute::engine

namespace ecocompute::engine {
namespace {

TEST(GreedyToken, PicksTheLowestIdOfTheLargestLogit) {
  // 19 values: two full 8-lane blocks and a tail of 3, so every part of the loop is exercised.
  std::vector<float> logits(19, -1.0F);
  logits[11] = 2.5F;
  EXPECT_EQ(greedy_token(logits), 11);
  logits[17] = 3.0F;  // in the tail
  EXPECT_EQ(greedy_token(logits), 17);
  logits[4] = 3.0F;  // a tie: the lower id wins, as with std::max_element
  EXPECT_EQ(greedy_token(logits), 4);
  logits[0] = 9.0F;
  EXPECT_EQ(greedy_token(logits), 0);
  EXPECT_EQ(greedy_token(std::vector<float>{-3.0F, -2.0F}), 1);
  EXPECT_EQ(greedy_token({}), -1);
}

}  // namespace
}  // namespace ecocompute::engine
