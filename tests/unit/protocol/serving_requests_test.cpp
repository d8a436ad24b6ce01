// The serving request set: the same requests from the same seed, inside the ranges; JSONL files
// checked line by line.
#include "protocol/serving_requests.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "support/scratch_dir.hpp"

namespace ecocompute::protocol {
namespace {

std::size_t words(const std::string& text) {
  std::istringstream in(text);
  std::size_t n = 0;
  for (std::string w; in >> w;) ++n;
  return n;
}

TEST(ServingRequests, ASeedGivesTheSameRequestsInsideTheRanges) {
  RequestSetOptions options;
  options.seed = 42;
  options.count = 50;
  options.prompt_words_min = 3;
  options.prompt_words_max = 9;
  options.output_tokens_min = 5;
  options.output_tokens_max = 7;
  const auto a = make_request_set(options);
  const auto b = make_request_set(options);
  ASSERT_EQ(a.size(), 50u);
  bool lengths_vary = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].prompt, b[i].prompt);
    EXPECT_EQ(a[i].max_tokens, b[i].max_tokens);
    EXPECT_GE(words(a[i].prompt), 3u);
    EXPECT_LE(words(a[i].prompt), 9u);
    EXPECT_GE(a[i].max_tokens, 5);
    EXPECT_LE(a[i].max_tokens, 7);
    lengths_vary = lengths_vary || a[i].max_tokens != a[0].max_tokens;
  }
  EXPECT_TRUE(lengths_vary);
  options.seed = 43;
  EXPECT_NE(make_request_set(options)[0].prompt + std::to_string(make_request_set(options)[0].max_tokens),
            a[0].prompt + std::to_string(a[0].max_tokens));
}

class ServingRequestsFile : public ecocompute::testing::ScratchDirTest {
 protected:
  std::filesystem::path write(const std::string& text) const {
    const auto path = dir_ / "requests.jsonl";
    std::ofstream(path) << text;
    return path;
  }
};

TEST_F(ServingRequestsFile, ReadsOneRequestPerLineSkippingBlankLines) {
  auto set = read_request_set(write("{\"prompt\": \"hello\", \"max_tokens\": 4}\n\n{\"prompt\": \"x y\", \"max_tokens\": 9}\n"));
  ASSERT_TRUE(set.has_value()) << set.error().message();
  ASSERT_EQ(set->size(), 2u);
  EXPECT_EQ(set->at(1).prompt, "x y");
  EXPECT_EQ(set->at(1).max_tokens, 9);
}

TEST_F(ServingRequestsFile, ABadLineIsNamedWithItsNumber) {
  for (const char* bad : {"{\"prompt\": \"a\", \"max_tokens\": 0}", "{\"prompt\": \"\", \"max_tokens\": 3}",
                          "{\"max_tokens\": 3}", "not json", "{\"prompt\": \"a\", \"max_tokens\": 2.5}"}) {
    auto set = read_request_set(write(std::string("{\"prompt\": \"ok\", \"max_tokens\": 1}\n") + bad + "\n"));
    ASSERT_FALSE(set.has_value()) << bad;
    EXPECT_EQ(set.error().code(), ErrorCode::invalid_input);
    EXPECT_NE(set.error().message().find("requests.jsonl:2"), std::string::npos) << set.error().message();
  }
  EXPECT_FALSE(read_request_set(write("\n\n")).has_value());
  EXPECT_EQ(read_request_set(dir_ / "missing.jsonl").error().code(), ErrorCode::not_found);
}

}  // namespace
}  // namespace ecocompute::protocol
