// The effects at a point named by their kinds alone are the effects that apply there, and a design
// finds them as it finds the effects themselves.
#include "decide/fixed_effects.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "decide/model_cells.hpp"
#include "decide/model_point.hpp"

namespace ecocompute::decide {
namespace {

std::vector<ModelPoint> points() {
  std::vector<ModelPoint> out;
  for (const char* engine : {"llama.cpp", "transformers+bitsandbytes"}) {
    for (const char* precision : {"Q4_K_M", "Q8_0", "NF4"}) {
      for (int batch : {1, 4, 8, 16, 64}) {
        for (int context : {0, 3072, 8192}) {
          for (double n : {0.5, 8.0}) out.push_back(point_of(CellPlace{engine, precision, "hopper", "H200", n, batch, context}));
        }
      }
    }
  }
  return out;
}

TEST(FixedEffects, TheKindsAtAPointNameTheEffectsThatApplyThereWithTheirCovariates) {
  const std::vector<ModelPoint> all = points();
  std::size_t with_regime = 0, with_context = 0;
  for (const ModelPoint& p : all) {
    std::vector<FixedEffect> named;
    for (EffectKind kind : EffectKindsAt(p)) {
      const FixedEffect e = effect_at(kind, p);
      EXPECT_EQ(e.kind, kind);
      EXPECT_TRUE(applies(e, p));
      EXPECT_EQ(covariate_at(kind, p, 1.3), covariate(e, p, 1.3));
      named.push_back(e);
      with_regime += kind == EffectKind::regime_slope;
      with_context += kind == EffectKind::context_slope;
    }
    EXPECT_EQ(named, effects_at(p));
    // Every effect of another point that moves this one is one of these (a context slope applies at
    // the baseline context too, with covariate 0).
    for (const ModelPoint& q : all) {
      for (const FixedEffect& e : effects_at(q)) {
        if (covariate(e, p, 1.3) != 0) {
          EXPECT_NE(std::find(named.begin(), named.end(), e), named.end());
        }
      }
    }
  }
  EXPECT_GT(with_regime, 0u);
  EXPECT_GT(with_context, 0u);
}

TEST(FixedEffects, ADesignHasTheEffectOfAKindAtAPointAsItHasTheEffect) {
  const std::vector<ModelPoint> all = points();
  // Designs of a few of the points each, so that many effects at the others are missing from them.
  for (std::size_t stride : {7u, 13u, 29u}) {
    std::vector<ModelPoint> some;
    for (std::size_t i = 0; i < all.size(); i += stride) some.push_back(all[i]);
    const Design design = make_design(some);
    std::size_t found = 0, missing = 0;
    for (const ModelPoint& p : all) {
      for (EffectKind kind : EffectKindsAt(p)) {
        const bool has = design.has(effect_at(kind, p));
        EXPECT_EQ(design.has_at(kind, p), has);
        (has ? found : missing) += 1;
      }
    }
    EXPECT_GT(found, 0u) << stride;
    EXPECT_GT(missing, 0u) << stride;
  }
}

}  // namespace
}  // namespace ecocompute::decide
