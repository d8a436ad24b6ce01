// Tests of the free-text question reader: the published examples and the spellings of batch and context.
#include "data/query_text.hpp"

#include <gtest/gtest.h>

namespace ecocompute::data {
namespace {

TEST(QueryText, ReadsThePublishedExample) {
  const QueryText t = parse_query_text("13B on A100 int8 batch 32 ctx 8k");
  EXPECT_EQ(t.params_b, 13.0);
  EXPECT_TRUE(t.gpu || t.arch);
  EXPECT_EQ(t.precision, "INT8");
  EXPECT_EQ(t.batch, 32);
  EXPECT_EQ(t.context, 8192);
}

TEST(QueryText, ReadsTheOtherSpellingsOfBatchAndContext) {
  EXPECT_EQ(parse_query_text("7B on RTX 4090 nf4 bs=8").batch, 8);
  EXPECT_EQ(parse_query_text("7B ada 4-bit batch size 4").batch, 4);
  EXPECT_EQ(parse_query_text("7B ada nf4 context 4096").context, 4096);
  EXPECT_EQ(parse_query_text("7B ada nf4 seqlen 2048").context, 2048);
  EXPECT_EQ(parse_query_text("7B ada nf4 8k tokens").context, 8192);
  EXPECT_EQ(parse_query_text("7B ada 8-bit").precision, "INT8");
  EXPECT_EQ(parse_query_text("7B ada q4").precision, "NF4");
}

TEST(QueryText, LeavesWhatItDoesNotSayAbsent) {
  const QueryText t = parse_query_text("14B on hopper");
  EXPECT_EQ(t.params_b, 14.0);
  EXPECT_EQ(t.arch, "hopper");
  EXPECT_FALSE(t.precision);
  EXPECT_FALSE(t.batch);
  EXPECT_FALSE(t.context);
  EXPECT_FALSE(parse_query_text("").params_b);
}

}  // namespace
}  // namespace ecocompute::data
