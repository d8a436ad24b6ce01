// The API against a careless or hostile client: grids past their caps and repeated values, misspelt
// fields, questions too long to read, NUL bytes and trailing bytes after the JSON, reports that
// contradict themselves, uploads without a write key, and errors that would echo megabytes back.
#include <gtest/gtest.h>

#include <string>

#include "server/write_keys.hpp"
#include "server_test_support.hpp"

namespace ecocompute::server {
namespace {

using testing::ApiFixture;
using testing::get;
using testing::post;

class HostileInputTest : public ApiFixture {};

std::string repeated_list(int count, bool distinct) {
  std::string out;
  for (int i = 1; i <= count; ++i) out += (out.empty() ? "" : ",") + std::to_string(distinct ? i : 1);
  return out;
}

TEST_F(HostileInputTest, AGridPastItsCapIsRefusedNamingTheCap) {
  const std::string body = R"({"params_b":8,"gpu":"H200","batches":[)" + repeated_list(200, true) + R"(],"contexts":[)" +
                           repeated_list(200, true) + "]}";
  const Json answer = call(post("/v1/optimize", body), 400);
  EXPECT_NE(answer["error"].get<std::string>().find("batches has 200 distinct values; at most 32"), std::string::npos)
      << answer["error"];
  const Json total = call(post("/v1/optimize", R"({"params_b":8,"gpu":"H200","batches":[)" + repeated_list(30, true) +
                                                   R"(],"contexts":[)" + repeated_list(30, true) + "]}"),
                          400);
  EXPECT_NE(total["error"].get<std::string>().find("at most 512 are scored"), std::string::npos) << total["error"];
}

TEST_F(HostileInputTest, RepeatedGridValuesAreSearchedOnce) {
  const std::string body = R"({"params_b":8,"gpu":"H200","precisions":["FP16","fp16","NF4"],"batches":[)" +
                           repeated_list(200, false) + R"(],"contexts":[2048,2048,2048]})";
  const Json answer = call(post("/v1/optimize", body), 200);
  EXPECT_EQ(answer["input"]["grid"]["batches"], Json::array({1}));
  EXPECT_EQ(answer["input"]["grid"]["contexts"], Json::array({2048}));
  EXPECT_EQ(answer["input"]["grid"]["precisions"], Json::array({"FP16", "NF4"}));
}

TEST_F(HostileInputTest, AMisspeltFieldIsRefusedListingIt) {
  const Json answer = call(post("/v1/optimize", R"({"pramas_b":8,"gpu":"H200","objektive":"min_energy"})"), 400);
  const std::string error = answer["error"];
  EXPECT_NE(error.find("unknown fields 'objektive', 'pramas_b'"), std::string::npos) << error;
  EXPECT_NE(error.find("params_b"), std::string::npos);
  const Json estimate = call(get("/v1/estimate", {{"params_b", "8"}, {"gpu", "H200"}, {"precison", "Q4_0"}}), 400);
  EXPECT_NE(estimate["error"].get<std::string>().find("unknown field 'precison'"), std::string::npos) << estimate["error"];
}

TEST_F(HostileInputTest, AQuestionTooLongToReadIsRefusedAndTheEchoIsCut) {
  const std::string digits(15'000, '7');
  const Json answer = call(get("/v1/estimate", {{"q", digits}}), 400);
  EXPECT_NE(answer["error"].get<std::string>().find("q is 15000 bytes long; a question may have at most 512"), std::string::npos)
      << answer["error"];
  EXPECT_LT(last_.body.size(), 2000u) << "the 15,000-digit question came back whole";
  // Within the 8 KiB body limit (a longer body is a 413 before it is read).
  const Json word = call(post("/v1/estimate", R"({"q":"1b-)" + std::string(6'000, 'x') + R"("})"), 400);
  EXPECT_NE(word["error"].get<std::string>().find("q is 6003 bytes long"), std::string::npos) << word["error"];
}

TEST_F(HostileInputTest, ErrorsQuoteAtMost200BytesOfInput) {
  const Json answer = call(post("/v1/estimate", R"({"params_b":8,"gpu":")" + std::string(6000, 'G') + R"("})"), 400);
  const std::string error = answer["error"];
  EXPECT_NE(error.find(std::string(200, 'G') + "…' (6000 bytes)"), std::string::npos) << error.substr(0, 300);
  EXPECT_EQ(error.find(std::string(201, 'G')), std::string::npos);
}

TEST_F(HostileInputTest, ANulByteOrTrailingBytesAfterTheJsonAreRefused) {
  const std::string report = testing::fixture_report().dump();
  for (const std::string& tail : {std::string("\0<script>alert(1)</script>", 27), std::string(" {}")}) {
    const Json stored = call(post("/v1/replications", report + tail), 400);
    EXPECT_NE(stored["error"].get<std::string>().find("not valid JSON"), std::string::npos) << stored["error"];
    call(post("/v1/estimate", R"({"params_b":8,"arch":"hopper"})" + tail), 400);
  }
  EXPECT_EQ(call(get("/v1/replications"), 200)["total"], 0);
}

TEST_F(HostileInputTest, TheStoredRowIsTheCanonicalJsonOfTheReport) {
  const OrderedJson report = testing::fixture_report();
  const Json stored = call(post("/v1/replications", report.dump(4) + "\n\n"), 201);
  auto row = store_->find(stored["id"].get<int>());
  ASSERT_TRUE(row && *row);
  EXPECT_EQ((*row)->report_json, Json(report).dump());
  EXPECT_EQ((*row)->report_sha256, sha256_hex(Json(report).dump()));
}

TEST_F(HostileInputTest, AReportThatContradictsItselfIsNotStoredNorGraded) {
  OrderedJson report = testing::fixture_report();
  report["results"]["tokens_generated"] = 0;
  report["results"]["total_energy_joules"] = 1.0;
  const Json refused = call(post("/v1/replications", report.dump()), 400);
  EXPECT_NE(refused["error"].get<std::string>().find("contradicts itself"), std::string::npos) << refused["error"];
  ASSERT_TRUE(refused["problems"].is_array());
  EXPECT_NE(refused["problems"][0].get<std::string>().find("results.tokens_generated: 0, but"), std::string::npos)
      << refused["problems"];
  const Json graded = call(post("/v1/check", report.dump()), 400);
  EXPECT_NE(graded["error"].get<std::string>().find("results.tokens_generated"), std::string::npos) << graded["error"];
}

class WriteKeyTest : public ApiFixture {
 protected:
  void SetUp() override {
    ApiFixture::SetUp();
    auto secret = add_write_key(dir_ / "keys.txt", "alice");
    ASSERT_TRUE(secret) << secret.error().describe();
    secret_ = *secret;
    auto keys = WriteKeyFile::open(dir_ / "keys.txt");
    ASSERT_TRUE(keys);
    auto store = open_sqlite_replication_store((dir_ / "keyed.sqlite").string());
    ASSERT_TRUE(store);
    keyed_store_ = std::move(store).value();
    ApiOptions options;
    options.rate_limit_per_minute = 0;
    options.write_keys = *keys;
    api_ = std::make_unique<Api>(testing::published_evidence(), *keyed_store_, StaticFiles::placeholder("test"), options);
  }
  HttpRequest upload(const std::string& authorization) const {
    HttpRequest r = post("/v1/replications", testing::fixture_report().dump());
    if (!authorization.empty()) r.headers["authorization"] = authorization;
    return r;
  }
  std::string secret_;
  std::unique_ptr<ReplicationStore> keyed_store_;
};

TEST_F(WriteKeyTest, UploadsNeedAKeyAndReadsDoNot) {
  const Json refused = call(upload(""), 401);
  EXPECT_NE(refused["error"].get<std::string>().find("ecocompute keys add NAME"), std::string::npos) << refused["error"];
  EXPECT_EQ(last_.header("WWW-Authenticate"), "Bearer realm=\"ecocompute uploads\"");
  call(upload("Bearer eck_" + std::string(64, '0')), 401);
  call(upload("Basic " + secret_), 401);
  EXPECT_EQ(secret_.rfind("eck_", 0), 0u);
  EXPECT_EQ(read_file(dir_ / "keys.txt")->find(secret_), std::string::npos) << "the secret itself was stored";
  call(upload("Bearer " + secret_), 201);
  call(get("/v1/replications"), 200);
  call(post("/v1/check", testing::fixture_report().dump()), 200);
}

TEST_F(WriteKeyTest, ARevokedKeyIsRefusedWithoutARestart) {
  call(upload("Bearer " + secret_), 201);
  ASSERT_TRUE(revoke_write_key(dir_ / "keys.txt", "alice"));
  call(upload("Bearer " + secret_), 401);
  auto refused = revoke_write_key(dir_ / "keys.txt", "alice");
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code(), ErrorCode::not_found);
}

TEST(WriteKeys, AMalformedKeyFileIsRefusedNamingTheLine) {
  EXPECT_TRUE(parse_write_keys("# comment\n\nalice sha256:" + std::string(64, 'a') + "\n", "keys.txt"));
  auto bad = parse_write_keys("alice sha256:" + std::string(64, 'a') + "\nbob secret\n", "keys.txt");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("keys.txt:2"), std::string::npos) << bad.error().message();
  EXPECT_FALSE(parse_write_keys("a sha256:" + std::string(64, 'a') + "\na sha256:" + std::string(64, 'b'), "k"));
  EXPECT_TRUE(is_loopback_host("127.0.0.1"));
  EXPECT_TRUE(is_loopback_host("::1"));
  EXPECT_FALSE(is_loopback_host("0.0.0.0"));
  EXPECT_NE(new_write_key(), new_write_key());
}

}  // namespace
}  // namespace ecocompute::server
