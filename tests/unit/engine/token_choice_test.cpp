#include <gtest/gtest.h>

#include "engine/engine.hpp"

namespace ecocompute::engine {
namespace {

TEST(TokenChoice, SpellingsRoundTrip) {
  for (TokenChoice choice : {TokenChoice::device, TokenChoice::host}) {
    auto parsed = parse_token_choice(to_string(choice));
    ASSERT_TRUE(parsed.has_value());
    EXPECT_EQ(*parsed, choice);
  }
}

TEST(TokenChoice, OtherTextIsAnErrorNamingIt) {
  for (const char* text : {"", "Device", "gpu", "cpu"}) {
    auto parsed = parse_token_choice(text);
    ASSERT_FALSE(parsed.has_value()) << text;
    EXPECT_EQ(parsed.error().code(), ErrorCode::invalid_argument);
    EXPECT_NE(parsed.error().message().find(std::string("'") + text + "'"), std::string::npos);
  }
}

TEST(TokenChoice, TheDeviceIsTheDefault) { EXPECT_EQ(LoadOptions{}.token_choice, TokenChoice::device); }

}  // namespace
}  // namespace ecocompute::engine
