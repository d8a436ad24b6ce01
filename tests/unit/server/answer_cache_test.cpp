// The answer cache: a bounded least-recently-used map, and the API serving a question asked again
// from it with the same bytes, never an error.
#include "server/answer_cache.hpp"

#include <gtest/gtest.h>

#include "server_test_support.hpp"

namespace ecocompute::server {
namespace {

TEST(AnswerCache, KeepsTheMostRecentlyUsedAnswersUpToItsBound) {
  AnswerCache cache(2);
  cache.put("a", "1");
  cache.put("b", "2");
  ASSERT_EQ(cache.find("a"), "1");  // a is now the most recently used
  cache.put("c", "3");              // b goes
  EXPECT_FALSE(cache.find("b"));
  EXPECT_EQ(cache.find("a"), "1");
  EXPECT_EQ(cache.find("c"), "3");
  cache.put("a", "4");  // replaced, not added
  EXPECT_EQ(cache.find("a"), "4");
  EXPECT_EQ(cache.size(), 2u);
}

TEST(AnswerCache, ABoundOfZeroKeepsNothing) {
  AnswerCache cache(0);
  cache.put("a", "1");
  EXPECT_FALSE(cache.find("a"));
  EXPECT_EQ(cache.size(), 0u);
}

class AnswerCacheApi : public testing::ApiFixture {};

TEST_F(AnswerCacheApi, AQuestionAskedAgainGetsTheSameBytesFromTheCache) {
  const auto ask = [&] { return api_->handle(testing::get("/v1/estimate", {{"params_b", "7"}, {"gpu", "H200"}, {"precision", "Q4_K_M"}})); };
  const HttpResponse first = ask();
  ASSERT_EQ(first.status, 200) << first.body;
  EXPECT_EQ(first.header("X-Answer-Cache"), "miss");
  const HttpResponse again = ask();
  ASSERT_EQ(again.status, 200);
  EXPECT_EQ(again.header("X-Answer-Cache"), "hit");
  EXPECT_EQ(again.body, first.body);
  // Another question is answered afresh; optimize keeps its own answers.
  const HttpResponse other = api_->handle(testing::get("/v1/estimate", {{"params_b", "8"}, {"gpu", "H200"}, {"precision", "Q4_K_M"}}));
  EXPECT_EQ(other.header("X-Answer-Cache"), "miss");
  EXPECT_NE(other.body, first.body);
  const auto optimize = [&] { return api_->handle(testing::get("/v1/optimize", {{"params_b", "7"}, {"gpu", "H200"}})); };
  EXPECT_EQ(optimize().header("X-Answer-Cache"), "miss");
  EXPECT_EQ(optimize().header("X-Answer-Cache"), "hit");
}

TEST_F(AnswerCacheApi, ARefusedQuestionIsNeverKept) {
  for (int i = 0; i < 2; ++i) {
    const HttpResponse refused = api_->handle(testing::get("/v1/estimate", {{"params_b", "7"}, {"gpu", "H2000"}, {"precision", "Q4_K_M"}}));
    EXPECT_EQ(refused.status, 400) << refused.body;
    EXPECT_FALSE(refused.header("X-Answer-Cache"));
  }
}

}  // namespace
}  // namespace ecocompute::server
