// Tests of Result<T> and Error.
#include "util/result.hpp"

#include <gtest/gtest.h>

namespace ecocompute {
namespace {

Result<int> parse_positive(int v) {
  if (v <= 0) return unexpected(ErrorCode::invalid_argument, "value " + std::to_string(v) + " is not positive");
  return v;
}

TEST(Result, HoldsValue) {
  auto r = parse_positive(3);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, 3);
}

TEST(Result, HoldsErrorNamingInput) {
  auto r = parse_positive(-2);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), ErrorCode::invalid_argument);
  EXPECT_EQ(r.error().message(), "value -2 is not positive");
  EXPECT_EQ(r.value_or(7), 7);
}

TEST(Result, ValueOnErrorIsABrokenInvariant) {
  auto r = parse_positive(0);
  EXPECT_THROW((void)r.value(), InvariantError);
}

TEST(Error, DescribeJoinsCauses) {
  Error inner{ErrorCode::io, "cannot read model.gguf"};
  Error outer{ErrorCode::engine, "cannot load model", inner};
  EXPECT_EQ(outer.describe(), "cannot load model: cannot read model.gguf");
  ASSERT_NE(outer.cause(), nullptr);
  EXPECT_EQ(outer.cause()->code(), ErrorCode::io);
}

TEST(ResultVoid, DefaultIsSuccess) {
  Result<void> ok;
  EXPECT_TRUE(ok.has_value());
  Result<void> bad = unexpected(ErrorCode::io, "disk full");
  EXPECT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().message(), "disk full");
}

}  // namespace
}  // namespace ecocompute
