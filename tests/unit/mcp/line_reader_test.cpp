// The MCP transport's framing: a line past the limit is skipped while it is read (never held whole),
// answered with a parse error that says its size, and the next line is read as usual; a NUL byte is
// not taken for the end of the message.
#include "mcp/line_reader.hpp"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "mcp_test_support.hpp"

namespace ecocompute::mcp {
namespace {

TEST(LineReader, SkipsALineLongerThanTheLimitAndReadsTheNext) {
  std::istringstream in(std::string(100, 'x') + "\nshort\r\nlast");
  LineReader reader(in, 10);
  auto first = reader.next();
  ASSERT_TRUE(first);
  EXPECT_TRUE(first->too_long);
  EXPECT_EQ(first->bytes, 100u);
  EXPECT_TRUE(first->text.empty());
  auto second = reader.next();
  ASSERT_TRUE(second);
  EXPECT_FALSE(second->too_long);
  EXPECT_EQ(second->text, "short");
  auto third = reader.next();
  ASSERT_TRUE(third);
  EXPECT_EQ(third->text, "last");
  EXPECT_FALSE(reader.next());
}

TEST(LineReader, TheServerAnswersAnOverlongLineAndGoesOn) {
  const std::string huge = R"({"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":")" + std::string(3 << 20, 'a') + "\"}}";
  const auto responses = testing::converse(huge + "\n" + R"({"jsonrpc":"2.0","id":2,"method":"ping"})" + "\n");
  ASSERT_EQ(responses.size(), 2u);
  EXPECT_EQ(responses[0]["error"]["code"], parse_error);
  EXPECT_NE(responses[0]["error"]["message"].get<std::string>().find("longer than 1 MiB"), std::string::npos);
  EXPECT_EQ(responses[1]["id"], 2);
}

TEST(LineReader, ANulByteIsNotTheEndOfAMessage) {
  McpServer server(make_tools(testing::published_evidence()));
  const auto answer = server.handle_line(std::string(R"({"jsonrpc":"2.0","id":1,"method":"ping"})") + std::string(1, '\0') + "junk");
  ASSERT_TRUE(answer);
  EXPECT_EQ((*answer)["error"]["code"], parse_error);
  EXPECT_NE((*answer)["error"]["message"].get<std::string>().find("NUL byte at offset"), std::string::npos);
}

TEST(LineReader, AHostileQuestionIsAnErrorNotACrash) {
  McpServer server(make_tools(testing::published_evidence()));
  ASSERT_TRUE(server.handle_line(R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18"}})"));
  const Json call{{"jsonrpc", "2.0"},
                  {"id", 2},
                  {"method", "tools/call"},
                  {"params", {{"name", "should_i_quantize"}, {"arguments", {{"query", "1b-" + std::string(30'000, 'x')}}}}}};
  const auto answer = server.handle_line(call.dump());
  ASSERT_TRUE(answer);
  EXPECT_EQ((*answer)["result"]["isError"], true);
  EXPECT_NE((*answer)["result"]["content"][0]["text"].get<std::string>().find("bytes long"), std::string::npos);
}

}  // namespace
}  // namespace ecocompute::mcp
