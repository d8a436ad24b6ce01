#include "engine/split_mode.hpp"

#include <gtest/gtest.h>

namespace ecocompute::engine {
namespace {

TEST(SplitMode, SpellingsRoundTrip) {
  for (SplitMode mode : {SplitMode::layer, SplitMode::row, SplitMode::tensor}) {
    auto parsed = parse_split_mode(to_string(mode));
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(*parsed, mode);
  }
}

TEST(SplitMode, OtherTextIsAnErrorNamingIt) {
  for (const char* text : {"", "Layer", "none", "rows"}) {
    auto parsed = parse_split_mode(text);
    ASSERT_FALSE(parsed.has_value()) << text;
    EXPECT_EQ(parsed.error().code(), ErrorCode::invalid_argument);
    EXPECT_NE(parsed.error().message().find(std::string("'") + text + "'"), std::string::npos);
  }
}

}  // namespace
}  // namespace ecocompute::engine
