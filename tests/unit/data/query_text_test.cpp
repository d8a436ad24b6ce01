// Tests of the free-text question reader: the published examples and the spellings of batch and context.
#include "data/query_text.hpp"

#include <gtest/gtest.h>

#include <string>

namespace ecocompute::data {
namespace {

QueryText read(std::string_view text) {
  auto parsed = parse_query_text(text);
  EXPECT_TRUE(parsed) << text;
  return parsed ? *parsed : QueryText{};
}

TEST(QueryText, ReadsThePublishedExample) {
  const QueryText t = read("13B on A100 int8 batch 32 ctx 8k");
  EXPECT_EQ(t.params_b, 13.0);
  EXPECT_TRUE(t.gpu || t.arch);
  EXPECT_EQ(t.precision, "INT8");
  EXPECT_EQ(t.batch, 32);
  EXPECT_EQ(t.context, 8192);
}

TEST(QueryText, ReadsTheOtherSpellingsOfBatchAndContext) {
  EXPECT_EQ(read("7B on RTX 4090 nf4 bs=8").batch, 8);
  EXPECT_EQ(read("7B ada 4-bit batch size 4").batch, 4);
  EXPECT_EQ(read("7B ada nf4 context 4096").context, 4096);
  EXPECT_EQ(read("7B ada nf4 seqlen 2048").context, 2048);
  EXPECT_EQ(read("7B ada nf4 8k tokens").context, 8192);
  EXPECT_EQ(read("7B ada 8-bit").precision, "INT8");
  EXPECT_EQ(read("7B ada q4").precision, "NF4");
}

TEST(QueryText, LeavesWhatItDoesNotSayAbsent) {
  const QueryText t = read("14B on hopper");
  EXPECT_EQ(t.params_b, 14.0);
  EXPECT_EQ(t.arch, "hopper");
  EXPECT_FALSE(t.precision);
  EXPECT_FALSE(t.batch);
  EXPECT_FALSE(t.context);
  EXPECT_FALSE(read("").params_b);
}

TEST(QueryText, ReadsTheSpellingsEachRuleTakes) {
  EXPECT_EQ(read("TinyLlama 1.1B-Chat on T4").params_b, 1.1);
  EXPECT_EQ(read("a 13 billion model").params_b, 13.0);
  EXPECT_EQ(read("7 params").params_b, 7.0);
  EXPECT_EQ(read("SmolLM 500M on L4").params_b, 0.5);
  EXPECT_EQ(read("1.2.3b").params_b, 2.3);  // the leftmost number that a unit follows
  EXPECT_EQ(read("8b on ada b32").batch, 32);
  EXPECT_EQ(read("8b ada ctx=8 k").context, 8192);
  EXPECT_EQ(read("8b ada ctx 8 kb").context, 8);
  EXPECT_FALSE(read("8b ada ctx 8kb").context);
  EXPECT_EQ(read("8b ada sequence 2048").context, 2048);
  EXPECT_EQ(read("8b ada 32k context").context, 32768);
  EXPECT_FALSE(read("8b ada 32k contexts").context);
  EXPECT_EQ(read("8b ada 8 - - bit").precision, "INT8");
  EXPECT_EQ(read("8b on 4090 Q4_K_M").precision, "Q4_K_M");
  EXPECT_EQ(read("8b on 4090").gpu, "RTX 4090");
  EXPECT_EQ(read("8b on rtx 4080").arch, "ada");
  EXPECT_EQ(read("8b on H800").arch, "hopper");
  EXPECT_FALSE(read_query_text("8b batch 123456789").batch);  // past 10^7: not read, named in `unreadable`
  EXPECT_EQ(read_query_text("8b batch 123456789").unreadable, "batch 123456789");
}

// The inputs that crashed the regular-expression reader (stack overflow in regex_match) or took tens
// of seconds: read in linear time now, and refused past the length limit by parse_query_text.
TEST(QueryText, ReadsHostileTextInLinearTime) {
  const std::string digits(100'000, '9');
  const QueryText huge = read_query_text(digits);
  EXPECT_FALSE(huge.batch);
  const QueryText word = read_query_text("1b-" + std::string(30'000, 'x'));
  EXPECT_EQ(word.params_b, 1.0);
  const QueryText many = read_query_text(std::string(200'000, 'b') + " ctx " + std::string(50'000, '8') + "k");
  EXPECT_FALSE(many.context);
}

TEST(QueryText, RefusesAQuestionLongerThanTheLimitNamingTheField) {
  const std::string longest(max_query_text_bytes, 'x');
  EXPECT_TRUE(parse_query_text(longest));
  auto refused = parse_query_text(longest + "x", "--q");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code(), ErrorCode::invalid_argument);
  EXPECT_NE(refused.error().message().find("--q is 513 bytes long"), std::string::npos) << refused.error().message();
  EXPECT_NE(refused.error().message().find("512"), std::string::npos);
}

}  // namespace
}  // namespace ecocompute::data
