#include "engine/sse_reader.hpp"

#include <gtest/gtest.h>

namespace ecocompute::engine {
namespace {

TEST(SseReader, JoinsEventsSplitAcrossWritesAndLineEndings) {
  SseReader reader;
  std::vector<std::string> events;
  for (const char* piece : {"data: {\"a\"", ":1}\r\n\r\n: comment\n", "event: x\ndata: one\ndata: two\n", "\n",
                            "data: [DONE]\r\r"}) {
    for (auto& e : reader.feed(piece)) events.push_back(e);
  }
  EXPECT_FALSE(reader.error().has_value());
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0], "{\"a\":1}");
  EXPECT_EQ(events[1], "one\ntwo");
  EXPECT_EQ(events[2], "[DONE]");
  EXPECT_FALSE(reader.has_partial_event());
}

TEST(SseReader, AStrayLineMakesTheStreamMalformed) {
  SseReader reader;
  EXPECT_TRUE(reader.feed("data: ok\n\n").size() == 1);
  EXPECT_TRUE(reader.feed("<html>\n\ndata: later\n\n").empty());
  ASSERT_TRUE(reader.error().has_value());
  EXPECT_NE(reader.error()->find("<html>"), std::string::npos);
}

TEST(SseReader, ACutOffEventIsPartial) {
  SseReader reader;
  EXPECT_TRUE(reader.feed("data: {\"half").empty());
  EXPECT_TRUE(reader.has_partial_event());
}

}  // namespace
}  // namespace ecocompute::engine
