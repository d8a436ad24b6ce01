// Tests of compare's between-card spread: two H200 sessions at 8 B are judged against what two cards
// differ by in the decision model, not only against their own CIs.
#include "decide/card_spread.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "data/dataset_store.hpp"
#include "support/published_evidence.hpp"

namespace ecocompute::decide {
namespace {

using ::ecocompute::testing::published_evidence;

TEST(CardSpread, TwoCardsAreJudgedAgainstTheSpreadOfCards) {
  auto store = data::open_published_store();
  ASSERT_TRUE(store) << store.error().describe();
  auto a = data::load_comparison_side("NVIDIA H200 llama.cpp 2026-11-29 GPU-1e49a711", *store);
  auto b = data::load_comparison_side("NVIDIA H200 llama.cpp 2026-12-01 GPU-0f180e8b", *store);
  ASSERT_TRUE(a && b);
  data::Comparison c = data::compare(*a, *b);
  add_between_card_spread(c, published_evidence());
  bool seen = false;
  for (const data::PairedRow& p : c.pairs) {
    if (p.precision != "Q4_K_M") continue;
    seen = true;
    ASSERT_TRUE(p.between_cards_pp && p.beyond_between_cards);
    // −38.56 % and −41.33 %: 2.8 points apart, beyond both sessions' own CIs (±0.1 and ±0.6)…
    EXPECT_TRUE(p.beyond_within_sessions.value_or(false));
    // …and judged against what two cards differ by in the model: 95 % of the difference of two cards'
    // figures, from the between-card variance REML estimates for the format (a few points at this
    // ratio: more than 2.8 pt with the fit before 2026-12-04's 14.8 B IQ4_NL cells, so the pair was
    // "within"; 2.6 pt after, so it is "more than", the card variance now near the pooled spread of
    // the 86 replicated H200 places, ~1 % of the ratio per card). The verdict follows that figure, and
    // the text says which.
    ASSERT_TRUE(p.difference_pp);
    EXPECT_GT(*p.between_cards_pp, 1.5);
    EXPECT_LT(*p.between_cards_pp, 8.0);
    EXPECT_EQ(*p.beyond_between_cards, std::abs(*p.difference_pp) > *p.between_cards_pp);
    const std::string verdict = *p.beyond_between_cards ? "more than cards differ by" : "within what cards differ by";
    EXPECT_NE(data::to_text(c).find(verdict), std::string::npos) << data::to_text(c);
  }
  EXPECT_TRUE(seen);
  EXPECT_FALSE(between_cards_pp(published_evidence(), "hopper", "llama.cpp", "Q2_K", -40));
}

}  // namespace
}  // namespace ecocompute::decide
