// Tests of the MCP server fed NDJSON through string streams: JSON-RPC framing and errors, version
// negotiation, tools/list schemas, tools/call of every tool, and the measurement plan.
#include "mcp/mcp_server.hpp"

#include <gtest/gtest.h>

#include "mcp_test_support.hpp"

namespace ecocompute::mcp {
namespace {

using testing::converse;

const std::string init =
    R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})"
    "\n"
    R"({"jsonrpc":"2.0","method":"notifications/initialized"})"
    "\n";

Json call(const std::string& tool, const Json& arguments) {
  const Json request{{"jsonrpc", "2.0"}, {"id", 7}, {"method", "tools/call"},
                     {"params", {{"name", tool}, {"arguments", arguments}}}};
  const auto responses = converse(init + request.dump() + "\n");
  EXPECT_EQ(responses.size(), 2u);
  return responses.back();
}

TEST(McpServer, NegotiatesTheProtocolVersion) {
  auto r = converse(init);
  ASSERT_EQ(r.size(), 1u);  // the notification is not answered
  EXPECT_EQ(r[0]["id"], 1);
  EXPECT_EQ(r[0]["result"]["protocolVersion"], "2025-06-18");
  EXPECT_EQ(r[0]["result"]["serverInfo"]["name"], "ecocompute");
  EXPECT_TRUE(r[0]["result"]["capabilities"].contains("tools"));
  // An unknown version is answered with our newest.
  r = converse(R"({"jsonrpc":"2.0","id":"a","method":"initialize","params":{"protocolVersion":"1999-01-01"}})" "\n");
  EXPECT_EQ(r[0]["id"], "a");
  EXPECT_EQ(r[0]["result"]["protocolVersion"], supported_protocol_versions().front());
}

TEST(McpServer, AnswersJsonRpcErrors) {
  const auto r = converse(std::string("not json\n") +
                          R"([{"jsonrpc":"2.0","id":1,"method":"ping"}])" "\n"
                          R"({"jsonrpc":"1.0","id":2,"method":"ping"})" "\n"
                          R"({"jsonrpc":"2.0","id":3,"method":"tools/list"})" "\n" + init +
                          R"({"jsonrpc":"2.0","id":4,"method":"no/such"})" "\n"
                          R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"nope"}})" "\n"
                          R"({"jsonrpc":"2.0","method":"no/such/notification"})" "\n"
                          "\n"
                          R"({"jsonrpc":"2.0","id":6,"method":"ping"})" "\n");
  ASSERT_EQ(r.size(), 8u);
  EXPECT_EQ(r[0]["error"]["code"], parse_error);
  EXPECT_TRUE(r[0]["id"].is_null());
  EXPECT_EQ(r[1]["error"]["code"], invalid_request);  // batches are not part of MCP
  EXPECT_EQ(r[2]["error"]["code"], invalid_request);
  EXPECT_EQ(r[2]["id"], 2);
  EXPECT_EQ(r[3]["error"]["message"], "initialize first");
  EXPECT_EQ(r[4]["result"]["protocolVersion"], "2025-06-18");
  EXPECT_EQ(r[5]["error"]["code"], method_not_found);
  EXPECT_EQ(r[6]["error"]["code"], invalid_params);
  EXPECT_EQ(r[6]["error"]["message"], "unknown tool: nope");
  EXPECT_EQ(r[7]["id"], 6);
  EXPECT_EQ(r[7]["result"], Json::object());
}

TEST(McpServer, ListsFourToolsWithObjectSchemas) {
  const auto r = converse(init + R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})" "\n");
  ASSERT_EQ(r.size(), 2u);
  std::vector<std::string> names;
  for (const Json& tool : r[1]["result"]["tools"]) {
    names.push_back(tool["name"]);
    EXPECT_EQ(tool["inputSchema"]["type"], "object") << tool["name"];
    EXPECT_FALSE(tool["description"].get<std::string>().empty());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"should_i_quantize", "recommend_config", "list_architectures",
                                             "plan_measurement"}));
  EXPECT_EQ(r[1]["result"]["tools"][3]["inputSchema"]["required"], Json::array({"model"}));
}

TEST(McpServer, ShouldIQuantizeReturnsTheEstimate) {
  const Json r = call("should_i_quantize", {{"params_b", 7}, {"arch", "ada"}, {"precision", "NF4"}});
  EXPECT_EQ(r["result"]["isError"], false);
  const Json& s = r["result"]["structuredContent"];
  EXPECT_EQ(s["arch_used"], "ada");
  EXPECT_TRUE(s.contains("recommendation"));
  EXPECT_EQ(r["result"]["content"][0]["type"], "text");
}

TEST(McpServer, ToolErrorsAreResultsTheCallerCanCorrect) {
  const Json r = call("should_i_quantize", {{"params_b", -1}, {"arch", "ada"}});
  EXPECT_EQ(r["result"]["isError"], true);
  EXPECT_NE(r["result"]["content"][0]["text"].get<std::string>().find("params_b"), std::string::npos)
      << r;
}

TEST(McpServer, RecommendConfigAndListArchitecturesAnswer) {
  const Json rec = call("recommend_config", {{"params_b", 7}, {"gpu", "RTX 4090"}});
  EXPECT_EQ(rec["result"]["isError"], false) << rec;
  EXPECT_TRUE(rec["result"]["structuredContent"].contains("pareto_energy_latency"));
  const Json archs = call("list_architectures", Json::object());
  EXPECT_EQ(archs["result"]["structuredContent"]["curve_source"], "store");
  EXPECT_EQ(archs["result"]["structuredContent"]["architectures"].size(), 5u);  // ada, ampere, blackwell, hopper, turing
}

TEST(McpServer, PlanMeasurementGivesTheExactCommand) {
  const Json r = call("plan_measurement", {{"model", "models/qwen2-0.5b-f16.gguf"}});
  EXPECT_EQ(r["result"]["structuredContent"]["command"],
            "ecocompute measure --model models/qwen2-0.5b-f16.gguf --baseline F16 --precisions Q8_0,Q4_K_M "
            "--trials 3 --out results/qwen2-0.5b-f16");
  EXPECT_EQ(r["result"]["content"][0]["text"],
            "Run: ecocompute measure --model models/qwen2-0.5b-f16.gguf --baseline F16 --precisions Q8_0,Q4_K_M "
            "--trials 3 --out results/qwen2-0.5b-f16");
}

TEST(PlanMeasurement, QuotesPathsAndChecksArguments) {
  auto plan = plan_measurement({{"model", "/my models/it's.gguf"}, {"precisions", "q4_k_m, Q5_K_M"}, {"trials", 5},
                                {"out", "out dir"}});
  ASSERT_TRUE(plan) << plan.error().describe();
  EXPECT_EQ((*plan)["command"], "ecocompute measure --model '/my models/it'\\''s.gguf' --baseline F16 "
                                "--precisions Q4_K_M,Q5_K_M --trials 5 --out 'out dir'");
  EXPECT_FALSE(plan_measurement(Json::object()));
  EXPECT_FALSE(plan_measurement({{"model", "m.gguf"}, {"trials", 1}}));
  auto not_gguf = plan_measurement({{"model", "m.gguf"}, {"precisions", {"NF4"}}});
  ASSERT_FALSE(not_gguf);
  EXPECT_NE(not_gguf.error().describe().find("not a GGUF type"), std::string::npos);
  EXPECT_FALSE(plan_measurement({{"model", "m.gguf"}, {"precisions", {"Q9_Z"}}}));
}

TEST(PlanMeasurement, AModelNameWithDotsKeepsThemAndTheNotesSayTheModelIsAnF16Gguf) {
  auto named = plan_measurement({{"model", "Qwen2.5-7B"}});
  ASSERT_TRUE(named) << named.error().describe();
  EXPECT_EQ((*named)["reports"], "results/Qwen2.5-7B");
  auto file = plan_measurement({{"model", "models/Qwen2.5-7B-f16.gguf"}});
  ASSERT_TRUE(file);
  EXPECT_EQ((*file)["reports"], "results/Qwen2.5-7B-f16");
  bool says_f16 = false;
  for (const Json& note : (*file)["notes"]) says_f16 = says_f16 || note.get<std::string>().find("F16") != std::string::npos;
  EXPECT_TRUE(says_f16) << (*file)["notes"].dump();
}

}  // namespace
}  // namespace ecocompute::mcp
