// Tests of request-target decoding and of the byte checks: what reaches the routes is decoded as the
// old adapter did, and invalid UTF-8 or control characters are found wherever they are.
#include "server/request_bytes.hpp"
#include "server/request_target.hpp"

#include <gtest/gtest.h>

namespace ecocompute::server {
namespace {

TEST(RequestTarget, SplitsAndDecodesPathAndQuery) {
  auto t = parse_request_target("/v1/estimate?params_b=7&arch=ada&precision=NF4&note=a+b%20c&flag&=x&&arch=hopper");
  ASSERT_TRUE(t) << t.error().describe();
  EXPECT_EQ(t->path, "/v1/estimate");
  EXPECT_EQ(t->query.at("params_b"), "7");
  EXPECT_EQ(t->query.at("arch"), "hopper");  // the last value wins
  EXPECT_EQ(t->query.at("note"), "a b c");
  EXPECT_EQ(t->query.at("flag"), "");
  EXPECT_EQ(t->query.at(""), "x");
  EXPECT_EQ(parse_request_target("/a%2Fb+c")->path, "/a/b+c");  // "+" is a space only in the query
  EXPECT_EQ(parse_request_target("/..%2f..%2fetc")->path, "/../../etc");
  EXPECT_EQ(parse_request_target("/%ff")->path, "/\xff");  // decoded as is; the byte check refuses it
  EXPECT_EQ(parse_request_target("/")->query.size(), 0u);
}

TEST(RequestTarget, TakesAbsoluteFormAndRefusesOthers) {
  EXPECT_EQ(parse_request_target("http://localhost:8080/healthz?x=1")->path, "/healthz");
  EXPECT_EQ(parse_request_target("http://localhost:8080/healthz?x=1")->query.at("x"), "1");
  EXPECT_EQ(parse_request_target("http://localhost:8080")->path, "/");
  EXPECT_EQ(parse_request_target("http://localhost:8080?x=2")->query.at("x"), "2");
  EXPECT_EQ(parse_request_target("*")->path, "*");
  for (const char* bad : {"healthz", "", "?x=1", "/a%zz", "/a%f", "/a?x=%", "/a?%g1=2"}) {
    auto t = parse_request_target(bad);
    ASSERT_FALSE(t) << bad;
    EXPECT_EQ(t.error().code(), ErrorCode::invalid_input) << bad;
  }
}

TEST(RequestBytes, ValidUtf8IsExactlyTheWellFormedSequences) {
  for (const char* good : {"", "ascii", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "\xef\xbf\xbf", "\xf4\x8f\xbf\xbf"}) {
    EXPECT_TRUE(is_valid_utf8(good)) << good;
  }
  for (const char* bad : {"\xff", "\xfe", "\x80", "\xc0\xaf", "\xc1\xbf", "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
                          "\xf5\x80\x80\x80", "\xc3", "\xe2\x82", "a\xc3(", "\xf0\x9f\x98"}) {
    EXPECT_FALSE(is_valid_utf8(bad)) << ::testing::PrintToString(std::string(bad));
  }
}

TEST(RequestBytes, NamesThePlaceNeverTheBytes) {
  HttpRequest r;
  r.path = "/v1/estimate";
  r.query["arch"] = "ada";
  EXPECT_FALSE(find_invalid_bytes(r));
  r.query["arch"] = "\xff";
  EXPECT_EQ(find_invalid_bytes(r), "query parameter 'arch' is not valid UTF-8 text");
  r.query.clear();
  r.query["\xff"] = "1";
  EXPECT_EQ(find_invalid_bytes(r), "a query parameter's name is not valid UTF-8 text");
  r.query.clear();
  r.path = "/a\x01";
  EXPECT_EQ(find_invalid_bytes(r), "the path is not valid UTF-8 text");
  r.path = "/";
  r.headers["x-note"] = "\xe9t\xe9";
  EXPECT_EQ(find_invalid_bytes(r), "header 'x-note' is not valid UTF-8 text");
  r.headers.clear();
  r.body = "{\"a\": \"\xff\"}";
  EXPECT_EQ(find_invalid_bytes(r), "the request body is not valid UTF-8");
}

}  // namespace
}  // namespace ecocompute::server
