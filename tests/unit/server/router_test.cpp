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
                RouteOptions{.max_body_bytes = 16, .cors = false, .rate_limited = true});
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
                RouteOptions{.max_body_bytes = default_max_body_bytes, .cors = true, .rate_limited = false});
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
  EXPECT_EQ(wrong.header("Allow"), "GET");
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
  const HttpResponse pre = router_.handle(options);
  EXPECT_EQ(pre.status, 204);
  EXPECT_EQ(pre.header("Access-Control-Allow-Methods"), "GET, POST, OPTIONS");
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
