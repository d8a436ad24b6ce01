#include "engine/endpoint_spec.hpp"

#include <gtest/gtest.h>

namespace ecocompute::engine {
namespace {

TEST(EndpointSpec, ParsesLabelUrlAndModel) {
  auto spec = parse_endpoint_spec("Q4_K_M=http://127.0.0.1:8080/v1/#qwen2-7b");
  ASSERT_TRUE(spec.has_value()) << spec.error().message();
  EXPECT_EQ(spec->label, "Q4_K_M");
  EXPECT_EQ(spec->scheme_host_port, "http://127.0.0.1:8080");
  EXPECT_EQ(spec->path_prefix, "/v1");
  EXPECT_EQ(spec->model, "qwen2-7b");
  EXPECT_EQ(spec->base_url(), "http://127.0.0.1:8080/v1");
}

TEST(EndpointSpec, ModelNamesMayContainSlashesAndUrlsMayLackAPath) {
  auto spec = parse_endpoint_spec("AWQ=https://gpu-box#meta-llama/Llama-3-8B");
  ASSERT_TRUE(spec.has_value()) << spec.error().message();
  EXPECT_EQ(spec->scheme_host_port, "https://gpu-box");
  EXPECT_EQ(spec->path_prefix, "");
  EXPECT_EQ(spec->model, "meta-llama/Llama-3-8B");
}

TEST(EndpointSpec, RejectsMalformedTextNamingIt) {
  for (const char* bad : {"http://h:1/v1#m", "F16=http://h:1/v1", "F16=http://h:1/v1#", "F 16=http://h/v1#m",
                          "F16=ftp://h/v1#m", "F16=http:///v1#m", "=http://h/v1#m", "F16=http://:80/v1#m"}) {
    auto spec = parse_endpoint_spec(bad);
    ASSERT_FALSE(spec.has_value()) << bad;
    EXPECT_EQ(spec.error().code(), ErrorCode::invalid_argument);
    EXPECT_NE(spec.error().message().find(bad), std::string::npos) << spec.error().message();
  }
}

}  // namespace
}  // namespace ecocompute::engine
