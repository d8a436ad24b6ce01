// The endpoint client against a scripted fake server: token counts only from usage, and every fault
// (HTTP errors, cut streams, malformed or contradictory data, silence) a failed request with a reason.
#include "engine/endpoint_client.hpp"

#include <gtest/gtest.h>

#include "support/fake_openai_server.hpp"

namespace ecocompute::engine {
namespace {

using testing::FakeOpenAiServer;
using testing::FakeReply;

EndpointClient client_for(const FakeOpenAiServer& server, EndpointOptions options = {}) {
  auto spec = parse_endpoint_spec("F16=" + server.base_url() + "#fake-model");
  EXPECT_TRUE(spec.has_value());
  return EndpointClient(*spec, options, system_clock());
}

RequestRecord send_with(FakeReply reply, std::int64_t max_tokens = 16, EndpointOptions options = {}) {
  FakeOpenAiServer server([reply](const nlohmann::json&) { return reply; });
  return client_for(server, options).send({"hello there", max_tokens});
}

TEST(EndpointClient, CountsTokensFromUsageAndTimesEveryTextChunk) {
  const RequestRecord r = send_with(testing::good_stream(6, 7));
  ASSERT_TRUE(r.ok) << r.failure;
  EXPECT_EQ(r.http_status, 200);
  EXPECT_EQ(r.output_tokens, 6);
  EXPECT_EQ(r.prompt_tokens, 7);
  EXPECT_EQ(r.chunk_times.size(), 6u);
  EXPECT_EQ(r.server_model, "fake-model");
  ASSERT_TRUE(r.time_to_first_token().has_value());
  EXPECT_GE(r.time_to_first_token()->value, 0.0);
  EXPECT_EQ(r.inter_token_latencies_s().size(), 5u);
}

TEST(EndpointClient, AsksForUsageInTheStreamAndSendsTheRequestFields) {
  FakeOpenAiServer server([](const nlohmann::json&) { return testing::good_stream(2); });
  const RequestRecord r = client_for(server).send({"a prompt", 9});
  ASSERT_TRUE(r.ok) << r.failure;
  const auto bodies = server.bodies();
  ASSERT_EQ(bodies.size(), 1u);
  EXPECT_EQ(bodies[0]["model"], "fake-model");
  EXPECT_EQ(bodies[0]["prompt"], "a prompt");
  EXPECT_EQ(bodies[0]["max_tokens"], 9);
  EXPECT_EQ(bodies[0]["stream"], true);
  EXPECT_EQ(bodies[0]["stream_options"]["include_usage"], true);
  EXPECT_EQ(bodies[0]["ignore_eos"], true);
  EXPECT_EQ(bodies[0]["temperature"], 0);
}

TEST(EndpointClient, ChatRouteReadsDeltaContent) {
  FakeReply reply;
  reply.events = {testing::chat_event("Hi"), testing::chat_event(" you"), testing::usage_event(3, 2),
                  testing::done_event};
  EndpointOptions options;
  options.api = EndpointApi::chat;
  FakeOpenAiServer server([reply](const nlohmann::json&) { return reply; });
  const RequestRecord r = client_for(server, options).send({"hi", 8});
  ASSERT_TRUE(r.ok) << r.failure;
  EXPECT_EQ(r.output_tokens, 2);
  EXPECT_EQ(server.bodies().at(0)["messages"][0]["content"], "hi");
}

TEST(EndpointClient, ServerCoalescingTokensIntoFewerChunksIsNotAnError) {
  FakeReply reply;
  reply.events = {testing::text_event("two words"), testing::text_event(" more"), testing::usage_event(4, 5),
                  testing::done_event};
  const RequestRecord r = send_with(reply);
  ASSERT_TRUE(r.ok) << r.failure;
  EXPECT_EQ(r.output_tokens, 5);
  EXPECT_EQ(r.chunk_times.size(), 2u);
}

TEST(EndpointClient, Http500IsAFailedRequestWithTheStatus) {
  FakeReply reply;
  reply.status = 500;
  reply.body = R"({"error":"out of memory"})";
  const RequestRecord r = send_with(reply);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.http_status, 500);
  EXPECT_NE(r.failure.find("HTTP 500"), std::string::npos) << r.failure;
  EXPECT_NE(r.failure.find("out of memory"), std::string::npos) << r.failure;
  EXPECT_EQ(r.output_tokens, 0);
}

TEST(EndpointClient, MissingUsageIsAFailureNotAGuess) {
  FakeReply reply = testing::good_stream(3);
  reply.events.erase(reply.events.end() - 2);  // drop the usage chunk
  const RequestRecord r = send_with(reply);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.failure.find("no usage"), std::string::npos) << r.failure;
  EXPECT_EQ(r.output_tokens, 0);
}

TEST(EndpointClient, UsageFewerTokensThanTextChunksIsContradictory) {
  FakeReply reply = testing::good_stream(4);
  reply.events[4] = testing::usage_event(5, 2);
  const RequestRecord r = send_with(reply);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.failure.find("fewer than the 4 chunks"), std::string::npos) << r.failure;
}

TEST(EndpointClient, UsageAboveMaxTokensIsContradictory) {
  const RequestRecord r = send_with(testing::good_stream(5), 4);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.failure.find("exceeds max_tokens 4"), std::string::npos) << r.failure;
}

TEST(EndpointClient, WrongTotalTokensIsContradictory) {
  FakeReply reply = testing::good_stream(2);
  reply.events[2] =
      R"(data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":99}})" "\n\n";
  const RequestRecord r = send_with(reply);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.failure.find("total_tokens"), std::string::npos) << r.failure;
}

TEST(EndpointClient, NonIntegerUsageIsRejected) {
  FakeReply reply = testing::good_stream(2);
  reply.events[2] = R"(data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":"2"}})" "\n\n";
  const RequestRecord r = send_with(reply);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.failure.find("completion_tokens"), std::string::npos) << r.failure;
}

TEST(EndpointClient, DisconnectMidStreamIsAFailedRequest) {
  FakeReply reply = testing::good_stream(5);
  reply.events.resize(3);  // three chunks, then the server goes away
  reply.cut_after_events = true;
  const RequestRecord r = send_with(reply);
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.failure.empty());
  EXPECT_EQ(r.output_tokens, 0);
}

TEST(EndpointClient, StreamEndingWithoutDoneIsAFailedRequest) {
  FakeReply reply = testing::good_stream(3);
  reply.events.pop_back();  // no [DONE], but a clean end of the body
  const RequestRecord r = send_with(reply);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.failure.find("[DONE]"), std::string::npos) << r.failure;
}

TEST(EndpointClient, MalformedSseLineIsAFailedRequest) {
  FakeReply reply = testing::good_stream(3);
  reply.events.insert(reply.events.begin() + 1, "garbage without a field\n\n");
  const RequestRecord r = send_with(reply);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.failure.find("malformed SSE"), std::string::npos) << r.failure;
}

TEST(EndpointClient, NonJsonEventIsAFailedRequest) {
  FakeReply reply = testing::good_stream(3);
  reply.events.insert(reply.events.begin() + 1, "data: {not json\n\n");
  const RequestRecord r = send_with(reply);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.failure.find("not a JSON object"), std::string::npos) << r.failure;
}

TEST(EndpointClient, ErrorEventInTheStreamIsAFailedRequest) {
  FakeReply reply = testing::good_stream(3);
  reply.events.insert(reply.events.begin() + 2, R"(data: {"error":{"message":"server overloaded"}})" "\n\n");
  const RequestRecord r = send_with(reply);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.failure.find("server overloaded"), std::string::npos) << r.failure;
}

TEST(EndpointClient, SilenceLongerThanTheReadTimeoutIsAFailedRequest) {
  FakeReply reply = testing::good_stream(3);
  reply.delay_between = std::chrono::milliseconds(1500);
  EndpointOptions options;
  options.read_timeout = Seconds{0.2};
  const RequestRecord r = send_with(reply, 16, options);
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.failure.empty());
}

TEST(EndpointClient, SlowButSteadyStreamStillCounts) {
  FakeReply reply = testing::good_stream(3);
  reply.delay_between = std::chrono::milliseconds(50);
  const RequestRecord r = send_with(reply);
  ASSERT_TRUE(r.ok) << r.failure;
  EXPECT_EQ(r.output_tokens, 3);
}

TEST(EndpointClient, WholeResponseReadsUsage) {
  FakeReply reply;
  reply.stream = false;
  reply.body = R"({"model":"m1","choices":[{"text":"abc"}],"usage":{"prompt_tokens":2,"completion_tokens":3}})";
  EndpointOptions options;
  options.stream = false;
  const RequestRecord r = send_with(reply, 16, options);
  ASSERT_TRUE(r.ok) << r.failure;
  EXPECT_EQ(r.output_tokens, 3);
  EXPECT_EQ(r.server_model, "m1");
  EXPECT_FALSE(r.time_to_first_token().has_value());
}

TEST(EndpointClient, WholeResponseWithoutUsageFails) {
  FakeReply reply;
  reply.stream = false;
  reply.body = R"({"choices":[{"text":"abc"}]})";
  EndpointOptions options;
  options.stream = false;
  const RequestRecord r = send_with(reply, 16, options);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.failure.find("no usage"), std::string::npos) << r.failure;
}

TEST(EndpointClient, NothingListeningIsANoResponseFailure) {
  auto spec = parse_endpoint_spec("F16=http://127.0.0.1:1/v1#m");
  ASSERT_TRUE(spec.has_value());
  EndpointOptions options;
  options.connect_timeout = Seconds{1.0};
  const EndpointClient client(*spec, options, system_clock());
  const RequestRecord r = client.send({"x", 2});
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.failure.find("no response"), std::string::npos) << r.failure;
  EXPECT_FALSE(client.list_models().has_value());
}

TEST(EndpointClient, ListsTheServedModels) {
  FakeOpenAiServer server([](const nlohmann::json&) { return testing::good_stream(1); });
  auto models = client_for(server).list_models();
  ASSERT_TRUE(models.has_value()) << models.error().message();
  EXPECT_EQ(*models, std::vector<std::string>{"fake-model"});
}

}  // namespace
}  // namespace ecocompute::engine
