// KeptAnswers: an answer worked out once per key, and nothing carried into a copy.
#include <gtest/gtest.h>

#include <optional>

#include "util/kept_answers.hpp"

namespace ecocompute::util {
namespace {

TEST(KeptAnswers, WorksAnAnswerOutOncePerKeyAndACopyStartsWithNone) {
  KeptAnswers<std::optional<double>> kept;
  int worked = 0;
  auto answer = [&](double v) {
    return [&worked, v] {
      ++worked;
      return std::optional<double>(v);
    };
  };
  EXPECT_EQ(kept.get("a", answer(1.5)), 1.5);
  EXPECT_EQ(kept.get("a", answer(9.0)), 1.5);  // kept: not worked out again
  EXPECT_EQ(kept.get("b", [&] { ++worked; return std::optional<double>(); }), std::nullopt);
  EXPECT_EQ(kept.get("b", answer(2.0)), std::nullopt);  // an empty answer is kept too
  EXPECT_EQ(worked, 2);
  EXPECT_EQ(kept.size(), 2u);
  const KeptAnswers<std::optional<double>> copy = kept;
  EXPECT_EQ(copy.size(), 0u);
  EXPECT_EQ(copy.get("a", answer(4.0)), 4.0);
  KeptAnswers<std::optional<double>> assigned;
  assigned.get("c", answer(1.0));
  assigned = kept;
  EXPECT_EQ(assigned.size(), 0u);
}

}  // namespace
}  // namespace ecocompute::util
