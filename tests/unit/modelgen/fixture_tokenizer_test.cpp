// Tests of the fixture's SentencePiece-style vocabulary builder, and of llama.cpp tokenizing with it.
#include "modelgen/fixture_tokenizer.hpp"

#include <gtest/gtest.h>
#include <llama.h>

#include <memory>

#include "engine/llama_backend.hpp"
#include "support/tiny_gguf.hpp"

namespace ecocompute::modelgen {
namespace {

// "▁" (U+2581) in UTF-8.
const std::string sp = "\xE2\x96\x81";

TEST(FixtureTokenizer, LaysOutFixedPiecesAlphabetThenMerges) {
  // Words as llama.cpp sees "aa ab aa": "▁aa" ×2, "▁ab" ×1. Characters by count: a ×5, ▁ ×3, b ×1.
  // Pair counts: (▁,a) 3, (a,a) 2, (a,b) 1 → first merge "▁a" (3); then (▁a,a) 2 → "▁aa"; then (▁a,b) 1.
  auto t = build_fixture_tokenizer("aa ab aa", 259 + 3 + 3);
  ASSERT_TRUE(t) << t.error().describe();
  ASSERT_EQ(t->tokens.size(), 265U);
  EXPECT_EQ(t->tokens[0], "<unk>");
  EXPECT_EQ(t->tokens[1], "<s>");
  EXPECT_EQ(t->tokens[2], "</s>");
  EXPECT_EQ(t->tokens[3], "<0x00>");
  EXPECT_EQ(t->tokens[258], "<0xFF>");
  EXPECT_EQ(t->token_types[3], static_cast<std::int32_t>(TokenType::byte));
  EXPECT_EQ(t->tokens[259], "a");
  EXPECT_EQ(t->tokens[260], sp);
  EXPECT_EQ(t->tokens[261], "b");
  EXPECT_EQ(t->tokens[262], sp + "a");
  EXPECT_EQ(t->tokens[263], sp + "aa");
  EXPECT_EQ(t->tokens[264], sp + "ab");
  // Merges score -rank; characters sit below: -(3 merges + index).
  EXPECT_FLOAT_EQ(t->scores[262], 0.0F);
  EXPECT_FLOAT_EQ(t->scores[264], -2.0F);
  EXPECT_FLOAT_EQ(t->scores[259], -3.0F);
  EXPECT_EQ(t->model, "llama");
  EXPECT_EQ(t->bos_id, 1U);
  EXPECT_EQ(t->add_space_prefix, true);
}

TEST(FixtureTokenizer, IsDeterministic) {
  const std::string text = "In the beginning God created the heaven and the earth.\nAnd the earth was without form.";
  auto a = build_fixture_tokenizer(text, 300);
  auto b = build_fixture_tokenizer(text, 300);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->tokens, b->tokens);
  EXPECT_EQ(a->scores, b->scores);
}

TEST(FixtureTokenizer, RefusesImpossibleSizes) {
  auto empty = build_fixture_tokenizer("", 300);
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().code(), ErrorCode::invalid_argument);
  // 259 fixed pieces + 2 characters do not fit in 260.
  EXPECT_FALSE(build_fixture_tokenizer("ab", 260));
  // "▁ab" allows two merges ("ab" first: it sorts before "▁a" on a tie, then "▁ab"): 264 pieces at most.
  auto too_big = build_fixture_tokenizer("ab", 300);
  ASSERT_FALSE(too_big);
  EXPECT_NE(too_big.error().message().find("fewer than vocab_size 300"), std::string::npos);
}

TEST(FixtureTokenizer, LlamaCppTokenizesWithItAndFallsBackToBytes) {
  engine::testing::TempDir dir;
  const std::string text = "the cat sat on the mat\nthe cat ate the rat\n";
  auto t = build_fixture_tokenizer(text, 280);
  ASSERT_TRUE(t);
  ModelWriteRequest request;
  request.shape = *find_shape("llama3-tiny");
  request.shape.n_vocab = 280;
  request.tokenizer = *t;
  ASSERT_TRUE(write_model(dir / "m.gguf", request));
  engine::ensure_llama_backend();
  llama_model_params mp = llama_model_default_params();
  mp.vocab_only = true;
  std::unique_ptr<llama_model, decltype(&llama_model_free)> model(
      llama_model_load_from_file((dir / "m.gguf").c_str(), mp), &llama_model_free);
  ASSERT_TRUE(model);
  const llama_vocab* vocab = llama_model_get_vocab(model.get());
  const std::string probe = "the cat\nZ";
  std::vector<llama_token> ids(64);
  const int n = llama_tokenize(vocab, probe.data(), static_cast<int>(probe.size()), ids.data(), 64, false, false);
  ASSERT_GT(n, 0);
  ids.resize(static_cast<std::size_t>(n));
  // "Z" is not in the text: it must come out as its byte piece <0x5A> (id 3 + 0x5A = 93).
  EXPECT_EQ(ids.back(), 93);
  std::string back;
  for (llama_token id : ids) {
    char buf[64];
    const int len = llama_token_to_piece(vocab, id, buf, sizeof(buf), 0, false);
    ASSERT_GE(len, 0);
    back.append(buf, static_cast<std::size_t>(len));
  }
  EXPECT_EQ(back, " the cat\nZ");  // the leading space is add_space_prefix's
}

}  // namespace
}  // namespace ecocompute::modelgen
