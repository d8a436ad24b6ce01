// POST /v1/check?rules=…: which rules grade an uploaded energy.json.
#include <gtest/gtest.h>

#include "server_test_support.hpp"
#include "util/file_io.hpp"

namespace ecocompute::server {
namespace {

class CheckRulesTest : public testing::ApiFixture {
 protected:
  static std::string golden_report() {
    return read_file(std::string(ECOCOMPUTE_SOURCE_DIR) + "/tests/golden/energy/energy-Q8_0.json").value_or("");
  }
  Json check(const std::string& rules, int expected_status) {
    HttpRequest request = testing::post("/v1/check", golden_report());
    if (!rules.empty()) request.query["rules"] = rules;
    return call(request, expected_status);
  }
};

TEST_F(CheckRulesTest, OurRulesByDefaultThePublishedOnesWhenAsked) {
  EXPECT_EQ(check("", 200)["rules"], "ecocompute");
  EXPECT_EQ(check("ecocompute", 200)["rules"], "ecocompute");
  const Json published = check("published", 200);
  EXPECT_EQ(published["rules"], "published") << published.dump();
  EXPECT_TRUE(published.contains("overlay")) << published.dump();
}

TEST_F(CheckRulesTest, AnUnknownRuleSetIsABadRequestNamingTheParameter) {
  const Json body = check("strict", 400);
  EXPECT_NE(body["error"].get<std::string>().find("'rules'"), std::string::npos) << body.dump();
}

TEST_F(CheckRulesTest, ASharedLinksPointIsNotGradedByThePublishedRules) {
  const Json body = call(testing::get("/v1/check", {{"params_b", "7"}, {"arch", "ada"}, {"precision", "NF4"},
                                                    {"delta_pct", "-20"}, {"rules", "published"}}),
                         400);
  EXPECT_NE(body["error"].get<std::string>().find("POST /v1/check?rules=published"), std::string::npos) << body.dump();
}

}  // namespace
}  // namespace ecocompute::server
