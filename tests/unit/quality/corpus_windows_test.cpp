// Tests of window planning: exact spans, every target scored once, BOS, caps and invalid policies.
#include "quality/corpus_windows.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "window_policy.hpp"

namespace ecocompute::quality {
namespace {

using testing::policy;

std::vector<engine::Token> iota_stream(int n) {
  std::vector<engine::Token> stream(static_cast<std::size_t>(n));
  std::iota(stream.begin(), stream.end(), 0);
  return stream;
}

TEST(CorpusWindows, WithoutBosFirstWindowScoresAllButItsFirstToken) {
  // 10 tokens, 4 per window, stride 2: [0,4) scores 1..3; [2,6) scores 4,5; [4,8) 6,7; [6,10) 8,9.
  auto windows = CorpusWindows::plan(iota_stream(10), policy(4, 2, false), 99);
  ASSERT_TRUE(windows.has_value());
  EXPECT_EQ(windows->spans(), (std::vector<WindowSpan>{{0, 4, 1}, {2, 6, 4}, {4, 8, 6}, {6, 10, 8}}));
  EXPECT_EQ(windows->scored_tokens(), 9);
  EXPECT_EQ(windows->tokens(windows->spans()[1]), (std::vector<engine::Token>{2, 3, 4, 5}));
  EXPECT_EQ(windows->first_scored_position(windows->spans()[0]), 1);
  EXPECT_EQ(windows->first_scored_position(windows->spans()[1]), 2);
}

TEST(CorpusWindows, WithBosEveryWindowStartsWithBosAndTheFirstTokenIsScored) {
  // BOS takes one of the 4 places: 3 stream tokens per window, stride 2:
  // [0,3) scores 0..2; [2,5) 3,4; [4,7) 5,6; [6,9) 7,8; [8,10) 9 (the tail window).
  auto windows = CorpusWindows::plan(iota_stream(10), policy(4, 2, true), 99);
  ASSERT_TRUE(windows.has_value());
  EXPECT_EQ(windows->spans(),
            (std::vector<WindowSpan>{{0, 3, 0}, {2, 5, 3}, {4, 7, 5}, {6, 9, 7}, {8, 10, 9}}));
  EXPECT_EQ(windows->scored_tokens(), 10);
  EXPECT_EQ(windows->tokens(windows->spans()[0]), (std::vector<engine::Token>{99, 0, 1, 2}));
  EXPECT_EQ(windows->tokens(windows->spans()[4]), (std::vector<engine::Token>{99, 8, 9}));
  EXPECT_EQ(windows->first_scored_position(windows->spans()[0]), 1);  // target 0, predicted from BOS
  EXPECT_EQ(windows->first_scored_position(windows->spans()[4]), 2);  // target 9, after context 8
}

TEST(CorpusWindows, StrideOfAWholeWindowGivesDisjointWindows) {
  // seq_len 4 with BOS, stride 3: [0,3) [3,6) [6,7), each scored from its BOS.
  auto windows = CorpusWindows::plan(iota_stream(7), policy(4, 3, true), 99);
  ASSERT_TRUE(windows.has_value());
  EXPECT_EQ(windows->spans(), (std::vector<WindowSpan>{{0, 3, 0}, {3, 6, 3}, {6, 7, 6}}));
}

TEST(CorpusWindows, EveryTargetIsScoredExactlyOnceWithFixedContext) {
  for (bool add_bos : {false, true}) {
    for (int n : {2, 3, 17, 64, 100}) {
      for (int seq_len : {2, 3, 8, 33}) {
        for (int stride = 1; stride < seq_len; ++stride) {
          auto windows = CorpusWindows::plan(iota_stream(n), policy(seq_len, stride, add_bos), 1000);
          ASSERT_TRUE(windows.has_value()) << n << " " << seq_len << " " << stride;
          std::vector<int> scored(static_cast<std::size_t>(n), 0);
          const std::int64_t content = seq_len - (add_bos ? 1 : 0);
          for (std::size_t w = 0; w < windows->spans().size(); ++w) {
            const WindowSpan& s = windows->spans()[w];
            EXPECT_LE(static_cast<std::int64_t>(windows->tokens(s).size()), seq_len);
            EXPECT_GT(s.scored(), 0);
            if (w > 0) {
              EXPECT_EQ(s.scored_begin - s.begin,
                        content - stride);  // the same context for every later window
            }
            for (std::int64_t t = s.scored_begin; t < s.end; ++t) ++scored[static_cast<std::size_t>(t)];
          }
          for (int t = 0; t < n; ++t) {
            const int expected = (t == 0 && !add_bos) ? 0 : 1;
            EXPECT_EQ(scored[static_cast<std::size_t>(t)], expected)
                << "token " << t << " n " << n << " seq_len " << seq_len << " stride " << stride;
          }
        }
      }
    }
  }
}

TEST(CorpusWindows, MaxTokensKeepsTheStreamsHead) {
  auto windows = CorpusWindows::plan(iota_stream(100), policy(8, 4, false, 10), 1000);
  ASSERT_TRUE(windows.has_value());
  EXPECT_EQ(windows->stream().size(), 10u);
  EXPECT_EQ(windows->scored_tokens(), 9);
  EXPECT_EQ(windows->spans().back().end, 10);
}

TEST(CorpusWindows, InvalidPoliciesAreRefusedWithTheirValue) {
  const auto refused = [](const WindowPolicy& p, engine::Token bos, int n, ErrorCode code,
                          const std::string& text) {
    auto windows = CorpusWindows::plan(iota_stream(n), p, bos);
    ASSERT_FALSE(windows.has_value());
    EXPECT_EQ(windows.error().code(), code);
    EXPECT_NE(windows.error().message().find(text), std::string::npos) << windows.error().message();
  };
  refused(policy(1, 1, false), 0, 10, ErrorCode::invalid_argument, "seq_len must be at least 2, got 1");
  refused(policy(8, 0, false), 0, 10, ErrorCode::invalid_argument, "got 0");
  refused(policy(8, 8, false), 0, 10, ErrorCode::invalid_argument, "[1, seq_len - 1 = 7], got 8");
  refused(policy(8, 4, false, -1), 0, 10, ErrorCode::invalid_argument, "max_tokens");
  refused(policy(8, 4, true), -1, 10, ErrorCode::invalid_argument, "no BOS token");
  refused(policy(8, 4, false), 0, 1, ErrorCode::invalid_input, "1 token(s): too few");
  refused(policy(8, 4, true), 0, 0, ErrorCode::invalid_input, "0 token(s): too few");
}

TEST(CorpusWindows, OneTokenWithBosIsScored) {
  auto windows = CorpusWindows::plan(iota_stream(1), policy(8, 4, true), 7);
  ASSERT_TRUE(windows.has_value());
  EXPECT_EQ(windows->spans(), (std::vector<WindowSpan>{{0, 1, 0}}));
}

TEST(CorpusWindows, DescribeStatesThePolicy) {
  EXPECT_EQ(describe(WindowPolicy{}),
            "windows of 512 tokens (BOS + 511 text), stride 256: each later window scores its last 256 tokens "
            "after 255 of context; first 32768 text tokens");
  EXPECT_EQ(describe(policy(8, 4, false)),
            "windows of 8 tokens (no BOS), stride 4: each later window scores its last 4 tokens after 4 of "
            "context; whole text");
}

}  // namespace
}  // namespace ecocompute::quality
