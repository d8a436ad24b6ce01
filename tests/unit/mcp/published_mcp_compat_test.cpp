// Drop-in compatibility with the published MCP server (mcp/server.js of the published service): the
// tools a client of it calls, with its arguments (should_i_quantize: params_b, arch, precision, batch,
// ctx, query; list_architectures: none), answered in its shapes; and the schemas' additionalProperties:
// false honoured (an unknown argument is an error the caller can correct, not silently dropped).
#include "mcp/mcp_server.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "mcp_test_support.hpp"

namespace ecocompute::mcp {
namespace {

std::vector<Json> converse_all(const std::vector<Json>& requests) {
  std::string input =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})"
      "\n";
  for (const Json& r : requests) input += r.dump() + "\n";
  return testing::converse(input);
}

Json call_result(const std::string& tool, const Json& arguments) {
  const auto r = converse_all({Json{{"jsonrpc", "2.0"}, {"id", 7}, {"method", "tools/call"},
                                {"params", {{"name", tool}, {"arguments", arguments}}}}});
  EXPECT_EQ(r.size(), 2u);
  return r.back()["result"];
}

Json schema_of(const std::string& tool) {
  const auto r = converse_all({Json{{"jsonrpc", "2.0"}, {"id", 2}, {"method", "tools/list"}}});
  for (const Json& t : r.back()["result"]["tools"]) {
    if (t["name"] == tool) return t["inputSchema"];
  }
  ADD_FAILURE() << "no tool " << tool;
  return Json();
}

TEST(PublishedMcpCompat, SchemasHaveEveryPublishedArgument) {
  const Json estimate = schema_of("should_i_quantize");
  for (const char* arg : {"params_b", "arch", "precision", "batch", "ctx", "query"}) {
    EXPECT_TRUE(estimate["properties"].contains(arg)) << arg;
  }
  EXPECT_EQ(estimate["additionalProperties"], false);
  const Json recommend = schema_of("recommend_config");
  for (const char* arg : {"params_b", "arch", "objective", "max_latency_ms", "max_vram_gb", "min_throughput", "batch",
                          "context", "precisions", "batches", "contexts"}) {
    EXPECT_TRUE(recommend["properties"].contains(arg)) << arg;
  }
  EXPECT_EQ(recommend["additionalProperties"], false);
  EXPECT_EQ(schema_of("list_architectures")["additionalProperties"], false);
}

TEST(PublishedMcpCompat, ShouldIQuantizeAnswersInThePublishedShape) {
  const Json r = call_result("should_i_quantize", {{"params_b", 7}, {"arch", "ada"}, {"precision", "NF4"}, {"batch", 1}, {"ctx", 2048}});
  ASSERT_EQ(r["isError"], false) << r;
  const Json& s = r["structuredContent"];
  for (const char* field : {"input", "delta_pct", "ci", "basis", "confidence", "recommendation", "verdict", "crossover_b",
                            "anchors", "arch_used", "modelled", "weight_gb", "weight_gb_fp16", "notes"}) {
    EXPECT_TRUE(s.contains(field)) << field;
  }
  for (const char* field : {"params_b", "arch", "precision", "batch", "ctx"}) EXPECT_TRUE(s["input"].contains(field)) << field;
  EXPECT_EQ(s["ci"].size(), 2u);
  EXPECT_EQ(r["content"][0]["type"], "text");
}

TEST(PublishedMcpCompat, QueryOverridesTheStructuredFields) {
  // server.js: "If given, it overrides the structured fields it can parse."
  const Json r = call_result("should_i_quantize", {{"params_b", 3}, {"arch", "ada"}, {"query", "13B on A100 int8 batch 32 ctx 8k"}});
  ASSERT_EQ(r["isError"], false) << r;
  const Json& input = r["structuredContent"]["input"];
  EXPECT_EQ(input["params_b"], 13.0);
  EXPECT_EQ(input["arch"], "ampere");
  EXPECT_EQ(input["precision"], "INT8");
  EXPECT_EQ(input["batch"], 32);
  EXPECT_EQ(input["ctx"], 8192);
  EXPECT_EQ(r["structuredContent"]["modelled"], true);
  EXPECT_NE(r["structuredContent"]["basis"], "measured");
}

TEST(PublishedMcpCompat, ErrorsAreToolErrors) {
  for (const Json& args : {Json{{"arch", "ada"}}, Json{{"params_b", 7}}, Json{{"params_b", 7}, {"arch", "turing"}, {"precision", "INT8"}}}) {
    const Json r = call_result("should_i_quantize", args);
    EXPECT_EQ(r["isError"], true) << args;
  }
}

TEST(PublishedMcpCompat, UnknownArgumentsAreRefused) {
  const Json typo = call_result("should_i_quantize", {{"params_b", 7}, {"arch", "ada"}, {"precison", "INT8"}});
  EXPECT_EQ(typo["isError"], true);
  EXPECT_NE(typo["content"][0]["text"].get<std::string>().find("precison"), std::string::npos) << typo;
  EXPECT_EQ(call_result("recommend_config", {{"params_b", 7}, {"arch", "ada"}, {"max_vram", 16}})["isError"], true);
  EXPECT_EQ(call_result("list_architectures", {{"verbose", true}})["isError"], true);
  EXPECT_EQ(call_result("plan_measurement", {{"model", "m.gguf"}, {"trails", 5}})["isError"], true);
}

TEST(PublishedMcpCompat, RecommendConfigTakesBatchAndContext) {
  const Json r = call_result("recommend_config", {{"params_b", 7}, {"arch", "ada"}, {"batch", 8}, {"context", 4096}});
  ASSERT_EQ(r["isError"], false) << r;
  const Json& rec = r["structuredContent"]["recommended"];
  EXPECT_EQ(rec["batch"], 8);
  EXPECT_EQ(rec["context"], 4096);
  EXPECT_EQ(rec["basis"]["latency"], "modelled");
  EXPECT_NE(rec["basis"]["energy"], "measured");  // batch 8 was not measured
}

TEST(PublishedMcpCompat, ListArchitecturesInThePublishedShape) {
  const Json r = call_result("list_architectures", Json::object());
  const Json& s = r["structuredContent"];
  for (const char* arch : {"ada", "ampere", "blackwell", "turing"}) {
    ASSERT_TRUE(s.contains(arch)) << arch;
    EXPECT_TRUE(s[arch]["label"].is_string());
    for (const auto& [precision, entry] : s[arch]["precisions"].items()) {
      EXPECT_EQ(entry["measured_range_b"].size(), 2u) << precision;
      EXPECT_TRUE(entry.contains("crossover_b")) << precision;
    }
  }
  // hopper is measured with llama.cpp: its formats are listed; its NF4 is borrowed as published.
  EXPECT_TRUE(s["hopper"]["precisions"].contains("Q4_K_M"));
}

}  // namespace
}  // namespace ecocompute::mcp
