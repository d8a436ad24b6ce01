// The restricted likelihood of the llama.cpp family has many optima (docs/decision-layer.md,
// "Estimation"): the fit must not depend on where its search starts. Before the multi-start search, the
// Nelder–Mead search stopped at −2 ln L −1512.8 from the default start on the llama.cpp engine's cells
// of 2026-12-04, where the best optimum is −1727.0, and a calibration fold started from the whole fit
// landed elsewhere than the whole fit.
#include <gtest/gtest.h>

#include <cmath>

#include "decide/batch_regime.hpp"
#include "decide/family_fit.hpp"
#include "decide/model_cells.hpp"
#include "decide/outcome_model.hpp"
#include "support/published_evidence.hpp"

namespace ecocompute::decide {
namespace {

TEST(SearchOptimum, TheShippedFitIsReachedFromAStartInAnotherBasin) {
  const Evidence& evidence = ::ecocompute::testing::published_evidence();
  const FamilyFit* shipped = evidence.model->ratio.family_of("llama.cpp");
  ASSERT_NE(shipped, nullptr);
  std::vector<Cell> cells;
  for (const Cell& c : ratio_cells(evidence.rows)) {
    if (engine_family(c.place.engine) == "llama.cpp") cells.push_back(c);
  }
  // The basin the old search stopped in from the default start: large between-card variances, a long
  // size scale, no shared size term.
  VarianceComponents other = shipped->components();
  for (auto& [key, variance] : other.card) variance = 0.0015;
  other.card_pooled = 0.0015;
  other.size_scale = 2.46;
  other.shared = 0.001;
  const auto refit = FamilyFit::fit("llama.cpp", cells, other, card_variance_floor());
  ASSERT_TRUE(refit.has_value());
  EXPECT_NEAR(refit->restricted_log_likelihood(), shipped->restricted_log_likelihood(), 0.01);
  EXPECT_NEAR(std::log(refit->components().size_scale), std::log(shipped->components().size_scale), 0.05);
  EXPECT_NEAR(std::log(refit->components().card_var("llama.cpp|Q4_K_M")),
              std::log(shipped->components().card_var("llama.cpp|Q4_K_M")), 0.05);
  // The search says how it got there: every start screened, the best few refined, at least one at the optimum.
  EXPECT_EQ(refit->search_starts(), 18);  // the given start, the moments' start, 16 quasi-random ones
  EXPECT_GE(refit->search_refined_at_best(), 1);
  EXPECT_LE(refit->search_refined_at_best(), refit->search_refined());
}

}  // namespace
}  // namespace ecocompute::decide
