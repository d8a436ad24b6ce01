// The OpenAPI document as a contract: the values a response emits are the ones its schema lists, and
// the published fields the document names are present.
#include <gtest/gtest.h>

#include <algorithm>

#include "server/api.hpp"
#include "server_test_support.hpp"

namespace ecocompute::server {
namespace {
using testing::get;

using OpenApiContractTest = testing::ApiFixture;

TEST_F(OpenApiContractTest, OpenApiEnumsHoldTheCurveSourceEveryResponseEmits) {
  // The published contract's values, "store" | "published": what every response names must be one of
  // the values its schema lists (it emitted "model", which the document did not allow).
  const Json doc = call(get("/openapi.json"), 200);
  auto allowed = [&](const Json& schema) {
    EXPECT_TRUE(schema.contains("enum")) << schema;
    return schema.value("enum", Json::array());
  };
  auto ok_schema = [&](const std::string& path) -> const Json& {
    return doc["paths"][path]["get"]["responses"]["200"]["content"]["application/json"]["schema"];
  };
  const Json archs = allowed(ok_schema("/v1/architectures")["properties"]["curve_source"]);
  const Json curves = allowed(ok_schema("/v1/curves")["properties"]["curve_source"]);
  const Json health = allowed(ok_schema("/healthz")["properties"]["curve_source"]);
  const Json input = allowed(doc["components"]["schemas"]["Estimate"]["properties"]["input"]["properties"]["curve_source"]);
  for (const Json* values : {&archs, &curves, &health, &input}) EXPECT_EQ(*values, Json::array({"store", "published"}));
  auto holds = [](const Json& values, const Json& value) { return std::find(values.begin(), values.end(), value) != values.end(); };
  EXPECT_TRUE(holds(archs, call(get("/v1/architectures"), 200)["curve_source"]));
  EXPECT_TRUE(holds(curves, call(get("/v1/curves", {{"arch", "ada"}}), 200)["curve_source"]));
  EXPECT_TRUE(holds(health, call(get("/healthz"), 200)["curve_source"]));
  const Json estimate = call(get("/v1/estimate", {{"params_b", "7"}, {"arch", "ada"}}), 200);
  EXPECT_TRUE(holds(input, estimate["input"]["curve_source"])) << estimate["input"];
  // The published curve fields: a sample's prediction band, and the health check's curve count.
  const Json sample = call(get("/v1/curves", {{"arch", "ada"}, {"precision", "NF4"}}), 200)["curves"][0]["samples"][0];
  for (const char* field : {"pi_low_pct", "pi_high_pct", "ci_low_pct", "ci_high_pct", "delta_pct", "params_b"}) {
    EXPECT_TRUE(sample.contains(field)) << field;
  }
  EXPECT_GT(call(get("/healthz"), 200)["curves"].get<int>(), 0);
}

}  // namespace
}  // namespace ecocompute::server
