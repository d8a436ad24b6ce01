// Tests of the command protocol's line parser: the lines a measured program may send, good and bad.
#include "engine/command_protocol.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/child_process.hpp"

namespace ecocompute::engine {
namespace {
using ::testing::HasSubstr;

TEST(CommandProtocol, SplitsVerbWordsAndFields) {
  auto line = parse_protocol_line("end decode  tokens=256 seconds=1.5");
  ASSERT_TRUE(line) << line.error().describe();
  EXPECT_EQ(line->verb, "end");
  ASSERT_EQ(line->words.size(), 1u);
  EXPECT_EQ(line->words[0], "decode");
  EXPECT_EQ(line->fields.at("tokens"), "256");
  EXPECT_EQ(line->fields.at("seconds"), "1.5");
}

TEST(CommandProtocol, RejectsMalformedLines) {
  const std::vector<std::string> lines{"", "Hello engine=x", "he-llo", "done tokens=", "done =5", "done Tokens=5",
                                "done tokens=1 tokens=2", std::string("done\ttokens=1"), std::string("done tokens=1\x01"),
                                std::string("d\xc3\xa9j\xc3\xa0")};
  for (const std::string& bad : lines) {
    auto line = parse_protocol_line(bad);
    ASSERT_FALSE(line) << "accepted: " << bad;
    EXPECT_EQ(line.error().code(), ErrorCode::invalid_input) << bad;
  }
}

TEST(CommandProtocol, RejectsHugeLinesWithoutEchoingThem) {
  const std::string huge = "done tokens=1 " + std::string(kMaxProtocolLine, 'x');
  auto line = parse_protocol_line(huge);
  ASSERT_FALSE(line);
  EXPECT_THAT(line.error().describe(), HasSubstr("bytes"));
  EXPECT_LT(line.error().describe().size(), 300u);
}

TEST(CommandProtocol, ErrorLineKeepsItsMessageWhole) {
  auto line = parse_protocol_line("error CUDA out of memory: tried=3 GiB");
  ASSERT_TRUE(line);
  EXPECT_EQ(line->verb, "error");
  EXPECT_EQ(line->rest, "CUDA out of memory: tried=3 GiB");
  EXPECT_TRUE(line->fields.empty());
}

TEST(CommandProtocol, HelloDeclaresTheEngine) {
  auto hello = parse_hello("hello engine=transformers version=4.46 precision=NF4 model=meta-llama/Llama-3-8B "
                           "params=8030261248 device=cuda:0 weights=real");
  ASSERT_TRUE(hello) << hello.error().describe();
  EXPECT_EQ(hello->engine, "transformers");
  EXPECT_EQ(hello->version, "4.46");
  EXPECT_EQ(hello->precision, "NF4");
  EXPECT_EQ(hello->model, "meta-llama/Llama-3-8B");
  EXPECT_EQ(hello->params, 8030261248u);
  EXPECT_EQ(hello->device, "cuda:0");
  EXPECT_EQ(hello->weights, "real");
}

TEST(CommandProtocol, HelloIgnoresUnknownFieldsAndDefaultsWeightsToReal) {
  auto hello = parse_hello("hello engine=x future_field=1");
  ASSERT_TRUE(hello);
  EXPECT_EQ(hello->weights, "real");
}

TEST(CommandProtocol, BadHellos) {
  EXPECT_FALSE(parse_hello("hello version=1"));                   // no engine
  EXPECT_FALSE(parse_hello("hi engine=x"));                       // another verb
  EXPECT_FALSE(parse_hello("done tokens=3"));                     // a reply, not a hello
  EXPECT_FALSE(parse_hello("hello engine=x params=-1"));          // negative count
  EXPECT_FALSE(parse_hello("hello engine=x params=1e9"));         // not digits
  EXPECT_FALSE(parse_hello("hello engine=x weights=great"));      // not a weights kind
  EXPECT_FALSE(parse_hello("hello engine=x model_sha256=abc"));   // not a sha256
  auto error = parse_hello("error cannot load the model");
  ASSERT_FALSE(error);
  EXPECT_EQ(error.error().code(), ErrorCode::engine);
  EXPECT_THAT(error.error().describe(), HasSubstr("cannot load the model"));
}

TEST(CommandProtocol, DoneMustCountTheTokensAskedFor) {
  auto done = parse_done("done tokens=256 seconds=0.75", 256);
  ASSERT_TRUE(done) << done.error().describe();
  EXPECT_EQ(done->tokens, 256);
  ASSERT_TRUE(done->seconds);
  EXPECT_DOUBLE_EQ(*done->seconds, 0.75);

  auto wrong = parse_done("done tokens=255", 256);
  ASSERT_FALSE(wrong);
  EXPECT_THAT(wrong.error().describe(), HasSubstr("tokens=255"));
  EXPECT_THAT(wrong.error().describe(), HasSubstr("256"));
}

TEST(CommandProtocol, DoneRejectsMissingNegativeAndOddCounts) {
  for (const char* bad : {"done", "done seconds=1", "done tokens=-5", "done tokens=+5", "done tokens=5x",
                          "done tokens=99999999999999999999", "done tokens=9007199254740993", "done tokens=5 seconds=-1",
                          "done tokens=5 seconds=nan", "ok", "prefill 5", "garbage"}) {
    auto done = parse_done(bad, 5);
    ASSERT_FALSE(done) << "accepted: " << bad;
    EXPECT_EQ(done.error().code(), ErrorCode::invalid_input) << bad;
  }
  auto error = parse_done("error decode failed", 5);
  ASSERT_FALSE(error);
  EXPECT_EQ(error.error().code(), ErrorCode::engine);
}

TEST(CommandProtocol, Markers) {
  auto begin = parse_marker("begin decode");
  ASSERT_TRUE(begin);
  EXPECT_EQ(begin->kind, Marker::Kind::begin);
  EXPECT_EQ(begin->label, "decode");
  EXPECT_FALSE(begin->tokens);
  auto end = parse_marker("end decode tokens=128");
  ASSERT_TRUE(end);
  EXPECT_EQ(end->kind, Marker::Kind::end);
  ASSERT_TRUE(end->tokens);
  EXPECT_EQ(*end->tokens, 128);
  auto untokened = parse_marker("end decode");
  ASSERT_TRUE(untokened);
  EXPECT_FALSE(untokened->tokens);
}

TEST(CommandProtocol, BadMarkers) {
  for (const char* bad : {"begin", "begin a b", "begin a tokens=3", "end a tokens=-3", "end a tokens=x",
                          "launch rockets", "done tokens=3"}) {
    EXPECT_FALSE(parse_marker(bad)) << "accepted: " << bad;
  }
}

TEST(CommandProtocol, Requests) {
  EXPECT_EQ(prefill_request(12), "prefill 12");
  EXPECT_EQ(decode_request(256), "decode 256");
  EXPECT_EQ(kQuitRequest, "quit");
}

}  // namespace
}  // namespace ecocompute::engine
