// Requests read, answers edited: the usage fields, malformed bodies left alone, the addresses.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "proxy/proxy_address.hpp"
#include "proxy/usage_energy.hpp"

namespace ecocompute::proxy {
namespace {

AnswerEnergy answer_of(double joules, double prompt, double completion) {
  AnswerEnergy answer;
  answer.energy.joules = joules;
  answer.energy.counter_read = true;
  answer.prompt_tokens = prompt;
  answer.completion_tokens = completion;
  return answer;
}

TEST(UsageEnergy, RequestFactsComeFromTheBody) {
  const RequestFacts facts = inspect_request(R"({"model":"llama","stream":true,"messages":[{"role":"user","content":"12345678"}]})");
  EXPECT_TRUE(facts.parsed);
  EXPECT_EQ(facts.model, "llama");
  EXPECT_TRUE(facts.streamed);
  EXPECT_DOUBLE_EQ(facts.prompt_tokens_estimate, 2.0);
  const RequestFacts junk = inspect_request("\x01\xff{{");
  EXPECT_FALSE(junk.parsed);
  EXPECT_EQ(junk.model, "unknown");
}

TEST(UsageEnergy, TheBodysUsageGainsTheEnergyFields) {
  const auto body = add_energy_to_body(R"({"id":"x","usage":{"prompt_tokens":6,"completion_tokens":4}})", answer_of(5.0, 6, 4));
  ASSERT_TRUE(body.has_value());
  const nlohmann::json json = nlohmann::json::parse(*body);
  EXPECT_EQ(json["usage"]["prompt_tokens"], 6);
  EXPECT_DOUBLE_EQ(json["usage"]["energy_j"].get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(json["usage"]["energy_j_per_output_token"].get<double>(), 1.25);
  EXPECT_DOUBLE_EQ(json["usage"]["energy_j_per_total_token"].get<double>(), 0.5);
  EXPECT_EQ(json["usage"]["energy_basis"], "attributed");
  EXPECT_TRUE(body->starts_with(R"({"id":"x","usage":)"));  // the server's key order is kept
}

TEST(UsageEnergy, MalformedBodiesAreNotEdited) {
  EXPECT_FALSE(add_energy_to_body("not json", answer_of(1, 1, 1)).has_value());
  EXPECT_FALSE(add_energy_to_body("[1,2]", answer_of(1, 1, 1)).has_value());
  EXPECT_FALSE(reported_usage_of_body("{\"usage\":").prompt_tokens.has_value());
}

TEST(UsageEnergy, ReportedUsageIgnoresNegativeAndNonNumbers) {
  const ReportedUsage usage = reported_usage_of_body(R"({"usage":{"prompt_tokens":-3,"completion_tokens":"7"}})");
  EXPECT_FALSE(usage.prompt_tokens.has_value());
  EXPECT_FALSE(usage.completion_tokens.has_value());
}

TEST(ProxyAddress, UpstreamUrlsAreSplitForTheClient) {
  auto url = parse_upstream_url("http://127.0.0.1:8080/llm/");
  ASSERT_TRUE(url.has_value());
  EXPECT_EQ(url->scheme_host_port, "http://127.0.0.1:8080");
  EXPECT_EQ(url->base_path, "/llm");
  EXPECT_TRUE(parse_upstream_url("https://gpu-box").has_value());
  EXPECT_TRUE(parse_upstream_url("http://[::1]:9000").has_value());
}

TEST(ProxyAddress, BadUpstreamsAreRefusedNamingTheValue) {
  for (const char* bad : {"127.0.0.1:8080", "ftp://x", "http://", "http://host:0", "http://host:99999", "http://ho st",
                          "http://host/a?b"}) {
    auto url = parse_upstream_url(bad);
    ASSERT_FALSE(url.has_value()) << bad;
    EXPECT_EQ(url.error().code(), ErrorCode::invalid_argument);
    EXPECT_NE(url.error().message().find(std::string("--upstream '") + bad + "'"), std::string::npos) << url.error().message();
  }
}

TEST(ProxyAddress, ListenAddresses) {
  auto address = parse_listen_address("0.0.0.0:9000");
  ASSERT_TRUE(address.has_value());
  EXPECT_EQ(address->host, "0.0.0.0");
  EXPECT_EQ(address->port, 9000);
  EXPECT_EQ(parse_listen_address(":0")->host, "127.0.0.1");
  EXPECT_EQ(parse_listen_address("[::1]:80")->host, "::1");
  EXPECT_FALSE(parse_listen_address("8090").has_value());
  EXPECT_FALSE(parse_listen_address("host:70000").has_value());
}

}  // namespace
}  // namespace ecocompute::proxy
