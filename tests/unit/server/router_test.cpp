// Tests of Router: dispatch, 404/405, body limit, rate limit, CORS, security headers, errors → status.
#include "server/router.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "server/api_error.hpp"
#include "server_test_support.hpp"

namespace ecocompute::server {
namespace {
using testing::get;
using testing::post;

class RouterTest : public ::testing::Test {
 protected:
  RouterTest() : limiter_(3, clock_), router_(limiter_) {
    router_.add("GET", "/v1/echo", [](const HttpRequest& r) -> Result<HttpResponse> {
      return json_response(200, "{\"q\":\"" + r.param("q").value_or("") + "\"}");
    });
    router_.add("POST", "/v1/store", [](const HttpRequest&) -> Result<HttpResponse> { return json_response(201, "{}"); },
                RouteOptions{.max_body_bytes = 16, .writes = true, .rate_limited = true});
    router_.add("GET", "/v1/bad", [](const HttpRequest&) -> Result<HttpResponse> {
      return unexpected(ErrorCode::invalid_argument, "field 'x' must be a number");
    });
    router_.add("GET", "/v1/missing", [](const HttpRequest&) -> Result<HttpResponse> {
      return unexpected(ErrorCode::not_found, "no such thing");
    });
    router_.add("GET", "/v1/broken", [](const HttpRequest&) -> Result<HttpResponse> {
      throw std::runtime_error("secret detail");
    });
    router_.add("GET", "/healthz", [](const HttpRequest&) -> Result<HttpResponse> { return json_response(200, "{}"); },
                RouteOptions{.max_body_bytes = default_max_body_bytes, .writes = false, .rate_limited = false});
  }
  std::shared_ptr<testing::ManualClock> clock_ = std::make_shared<testing::ManualClock>();
  RateLimiter limiter_;
  Router router_;
};

TEST_F(RouterTest, DispatchesByPathAndMethod) {
  const HttpResponse r = router_.handle(get("/v1/echo", {{"q", "hi"}}));
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.body, R"({"q":"hi"})");
  EXPECT_EQ(r.header("access-control-allow-origin"), "*");
}

TEST_F(RouterTest, UnknownPathIs404AndWrongMethodIs405WithAllow) {
  const HttpResponse missing = router_.handle(get("/v1/nothing"));
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(Json::parse(missing.body)["error"], "no such path: /v1/nothing");
  HttpRequest put = post("/v1/echo", "{}");
  const HttpResponse wrong = router_.handle(put);
  EXPECT_EQ(wrong.status, 405);
  EXPECT_EQ(wrong.header("Allow"), "GET, HEAD, OPTIONS");
}

TEST_F(RouterTest, ErrorsMapToOneStatusTable) {
  const HttpResponse bad = router_.handle(get("/v1/bad"));
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(Json::parse(bad.body)["error"], "field 'x' must be a number");
  EXPECT_EQ(router_.handle(get("/v1/missing")).status, 404);
  const HttpResponse broken = router_.handle(get("/v1/broken"));
  EXPECT_EQ(broken.status, 500);
  // The exception's text stays in the log, not in the answer.
  EXPECT_EQ(Json::parse(broken.body)["error"], "internal error");
  EXPECT_EQ(http_status_for(ErrorCode::conflict), 409);
  EXPECT_EQ(http_status_for(ErrorCode::unavailable), 503);
}

TEST_F(RouterTest, BodyOverTheRouteLimitIs413) {
  EXPECT_EQ(router_.handle(post("/v1/store", std::string(16, 'x'))).status, 201);
  const HttpResponse big = router_.handle(post("/v1/store", std::string(17, 'x')));
  EXPECT_EQ(big.status, 413);
  EXPECT_EQ(Json::parse(big.body)["error"], "request body of 17 bytes exceeds the limit of 16 bytes for /v1/store");
  EXPECT_EQ(router_.max_body_bytes(), default_max_body_bytes);
}

TEST_F(RouterTest, RateLimitAnswers429WithRetryAfter) {
  // 3 per minute: a token every 20 s.
  for (int i = 0; i < 3; ++i) EXPECT_EQ(router_.handle(get("/v1/echo")).status, 200);
  const HttpResponse limited = router_.handle(get("/v1/echo"));
  EXPECT_EQ(limited.status, 429);
  EXPECT_EQ(limited.header("Retry-After"), "20");
  // Health checks are not counted.
  EXPECT_EQ(router_.handle(get("/healthz")).status, 200);
  clock_->sleep_for(Seconds{20.0});
  EXPECT_EQ(router_.handle(get("/v1/echo")).status, 200);
}

TEST_F(RouterTest, EveryResponseCarriesSecurityHeaders) {
  for (const HttpResponse& r : {router_.handle(get("/v1/echo")), router_.handle(get("/v1/nothing")),
                                router_.handle(get("/v1/broken"))}) {
    EXPECT_EQ(r.header("X-Content-Type-Options"), "nosniff");
    EXPECT_EQ(r.header("X-Frame-Options"), "DENY");
    ASSERT_TRUE(r.header("Content-Security-Policy"));
    EXPECT_NE(r.header("Content-Security-Policy")->find("default-src 'self'"), std::string::npos);
  }
}

TEST_F(RouterTest, PreflightIsAnsweredAndStoringPostHasNoCors) {
  HttpRequest options = get("/v1/echo");
  options.method = "OPTIONS";
  options.headers["origin"] = "https://elsewhere.example";
  options.headers["access-control-request-method"] = "GET";
  const HttpResponse pre = router_.handle(options);
  EXPECT_EQ(pre.status, 204);
  EXPECT_EQ(pre.header("Access-Control-Allow-Origin"), "*");
  EXPECT_EQ(pre.header("Access-Control-Allow-Methods"), "GET, HEAD, OPTIONS");
  EXPECT_FALSE(router_.handle(post("/v1/store", "{}")).header("Access-Control-Allow-Origin"));
}

TEST_F(RouterTest, HeadIsGetWithoutBody) {
  HttpRequest head = get("/v1/echo", {{"q", "x"}});
  head.method = "HEAD";
  const HttpResponse r = router_.handle(head);
  EXPECT_EQ(r.status, 200);
  EXPECT_TRUE(r.body.empty());
}

}  // namespace
}  // namespace ecocompute::server

namespace ecocompute::server {
namespace {
using testing::get;
using testing::post;

// A router with one read (GET|POST /v1/compute), one write (GET|POST /v1/items), and static files.
class RouterPolicyTest : public ::testing::Test {
 protected:
  explicit RouterPolicyTest(std::vector<std::string> write_origins = {})
      : limiter_(0), router_(limiter_, CorsPolicy(write_origins)) {
    const Handler ok = [](const HttpRequest&) -> Result<HttpResponse> { return json_response(200, "{}"); };
    for (const char* method : {"GET", "POST"}) router_.add(method, "/v1/compute", ok);
    router_.add("GET", "/v1/items", ok);
    router_.add("POST", "/v1/items", ok, RouteOptions{.max_body_bytes = 64, .writes = true, .rate_limited = true});
    router_.set_fallback([](const HttpRequest& r) -> Result<HttpResponse> {
      if (r.path == "/index.html") return json_response(200, "{}");
      return unexpected(ErrorCode::not_found, "no such path: " + r.path);
    });
  }
  static HttpRequest preflight(const std::string& path, const std::string& origin, const std::string& method) {
    HttpRequest r = get(path);
    r.method = "OPTIONS";
    r.headers["origin"] = origin;
    r.headers["access-control-request-method"] = method;
    return r;
  }
  RateLimiter limiter_;
  Router router_;
};

class RouterWithAllowedOriginTest : public RouterPolicyTest {
 protected:
  RouterWithAllowedOriginTest() : RouterPolicyTest({"https://example.org"}) {}
};

TEST_F(RouterPolicyTest, InvalidBytesAre400NeverEchoed) {
  for (HttpRequest bad : {get("/v1/compute", {{"arch", "\xff"}}), get("/v1/compute", {{"\xc0\xaf", "1"}}),
                          get("/\xed\xa0\x80"), get("/v1/compute", {{"arch", "a\nb"}}), post("/v1/compute", "\"\xfe\"")}) {
    const HttpResponse r = router_.handle(bad);
    EXPECT_EQ(r.status, 400) << r.body;
    const Json body = Json::parse(r.body, nullptr, false);
    ASSERT_FALSE(body.is_discarded()) << r.body;
    EXPECT_TRUE(body["error"].is_string());
  }
  HttpRequest header = get("/v1/compute");
  header.headers["user-agent"] = "caf\xe9";
  EXPECT_EQ(router_.handle(header).status, 400);
  header.headers["user-agent"] = "caf\xc3\xa9\tok";  // UTF-8 and a tab are fine
  EXPECT_EQ(router_.handle(header).status, 200);
  // The head alone is enough for the adapter to refuse before reading a body.
  EXPECT_TRUE(router_.refuse_before_body(get("/v1/compute", {{"arch", "\xff"}})));
  EXPECT_FALSE(router_.refuse_before_body(get("/v1/compute", {{"arch", "ada"}})));
}

TEST_F(RouterPolicyTest, PostWithoutLengthIs411AndEmptyBodyIsRead) {
  HttpRequest bodiless = post("/v1/compute", "");
  bodiless.framed = false;
  const HttpResponse r = router_.handle(bodiless);
  EXPECT_EQ(r.status, 411);
  EXPECT_NE(Json::parse(r.body)["error"].get<std::string>().find("Content-Length"), std::string::npos);
  HttpRequest empty = post("/v1/compute", "");
  empty.content_length = 0;
  EXPECT_EQ(router_.handle(empty).status, 200);
}

TEST_F(RouterPolicyTest, OtherMethodsAre405WithAllowAndUnknownPathsStay404) {
  for (const char* method : {"PUT", "PATCH", "DELETE"}) {
    HttpRequest r = get("/v1/compute");
    r.method = method;
    const HttpResponse answer = router_.handle(r);
    EXPECT_EQ(answer.status, 405) << method;
    EXPECT_EQ(answer.header("Allow"), "GET, HEAD, POST, OPTIONS") << method;
    r.path = "/v1/none";
    EXPECT_EQ(router_.handle(r).status, 404) << method;
    r.path = "/index.html";  // a static file answers GET and HEAD only
    EXPECT_EQ(router_.handle(r).status, 405) << method;
    EXPECT_EQ(router_.handle(r).header("Allow"), "GET, HEAD, OPTIONS");
  }
  EXPECT_EQ(router_.handle(get("/index.html")).status, 200);
  EXPECT_EQ(router_.handle(get("/nothing.html")).status, 404);
}

TEST_F(RouterPolicyTest, DeclaredLengthOverTheLimitIsRefusedBeforeTheBody) {
  HttpRequest head = post("/v1/items", "");
  head.content_length = 65;
  const auto refused = router_.refuse_before_body(head);
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 413);
  head.content_length = 64;
  EXPECT_FALSE(router_.refuse_before_body(head));
}

TEST_F(RouterPolicyTest, WritesNeedJsonAndUnknownCodingsAreRefused) {
  for (const char* type : {"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", ""}) {
    HttpRequest r = post("/v1/items", "{}");
    r.headers["content-type"] = type;
    EXPECT_EQ(router_.handle(r).status, 415) << type;
  }
  HttpRequest json = post("/v1/items", "{}");
  json.headers["content-type"] = " Application/JSON ; charset=utf-8";
  EXPECT_EQ(router_.handle(json).status, 200);
  // Computations take any media type, as the published API does.
  HttpRequest text = post("/v1/compute", "{}");
  text.headers["content-type"] = "text/plain";
  EXPECT_EQ(router_.handle(text).status, 200);
  HttpRequest gzip = post("/v1/compute", "{}");
  gzip.headers["content-encoding"] = "gzip";
  EXPECT_EQ(router_.handle(gzip).status, 415);
  HttpRequest coded = post("/v1/compute", "{}");
  coded.headers["transfer-encoding"] = "gzip, chunked";
  EXPECT_EQ(router_.handle(coded).status, 501);
}

TEST_F(RouterPolicyTest, WritesAreClosedToOtherOriginsReadsAreOpen) {
  const HttpResponse write = router_.handle(preflight("/v1/items", "https://example.org", "POST"));
  EXPECT_EQ(write.status, 403);
  EXPECT_FALSE(write.header("Access-Control-Allow-Origin"));
  const HttpResponse list = router_.handle(preflight("/v1/items", "https://example.org", "GET"));
  EXPECT_EQ(list.status, 204);
  EXPECT_EQ(list.header("Access-Control-Allow-Origin"), "*");
  EXPECT_EQ(list.header("Access-Control-Allow-Methods"), "GET, HEAD, OPTIONS");
  const HttpResponse compute = router_.handle(preflight("/v1/compute", "https://example.org", "POST"));
  EXPECT_EQ(compute.status, 204);
  EXPECT_EQ(compute.header("Access-Control-Allow-Origin"), "*");
  HttpRequest upload = post("/v1/items", "{}");
  upload.headers["origin"] = "https://example.org";
  EXPECT_FALSE(router_.handle(upload).header("Access-Control-Allow-Origin"));
  EXPECT_EQ(router_.handle(get("/v1/items")).header("Access-Control-Allow-Origin"), "*");
  // Refusals follow the route: a refused read may be read by other origins, a refused write not.
  EXPECT_EQ(router_.handle(get("/v1/compute", {{"arch", "\xff"}})).header("Access-Control-Allow-Origin"), "*");
  upload.headers["content-type"] = "text/plain";
  const HttpResponse refused_write = router_.handle(upload);
  EXPECT_EQ(refused_write.status, 415);
  EXPECT_FALSE(refused_write.header("Access-Control-Allow-Origin"));
  // A plain OPTIONS (no preflight headers) says what the path answers.
  HttpRequest plain = get("/v1/items");
  plain.method = "OPTIONS";
  EXPECT_EQ(router_.handle(plain).header("Allow"), "GET, HEAD, POST, OPTIONS");
  plain.path = "/v1/none";
  EXPECT_EQ(router_.handle(plain).status, 404);
}

TEST_F(RouterWithAllowedOriginTest, AnAllowedOriginMayWrite) {
  const HttpResponse write = router_.handle(preflight("/v1/items", "https://example.org", "POST"));
  EXPECT_EQ(write.status, 204);
  EXPECT_EQ(write.header("Access-Control-Allow-Origin"), "https://example.org");
  EXPECT_EQ(write.header("Access-Control-Allow-Methods"), "GET, HEAD, POST, OPTIONS");
  EXPECT_EQ(write.header("Vary"), "Origin");
  HttpRequest upload = post("/v1/items", "{}");
  upload.headers["origin"] = "https://example.org";
  const HttpResponse stored = router_.handle(upload);
  EXPECT_EQ(stored.header("Access-Control-Allow-Origin"), "https://example.org");
  EXPECT_EQ(stored.header("Vary"), "Origin");
  upload.headers["origin"] = "https://example.org.evil.example";
  EXPECT_FALSE(router_.handle(upload).header("Access-Control-Allow-Origin"));
  EXPECT_EQ(router_.handle(preflight("/v1/items", "http://example.org", "POST")).status, 403);
}

TEST(ParseOrigin, AcceptsOriginsAsBrowsersWriteThem) {
  EXPECT_EQ(*parse_origin("https://Example.org/"), "https://example.org");
  EXPECT_EQ(*parse_origin("https://example.org:443"), "https://example.org");
  EXPECT_EQ(*parse_origin("http://localhost:8080"), "http://localhost:8080");
  EXPECT_EQ(*parse_origin("http://[::1]:80"), "http://[::1]");
  for (const char* bad : {"*", "null", "example.org", "https://", "https://example.org/upload", "ftp://example.org",
                          "https://user@example.org", "https://example.org?x"}) {
    EXPECT_FALSE(parse_origin(bad)) << bad;
  }
}

}  // namespace
}  // namespace ecocompute::server
