// Tests of what a question may ask: a mixture of experts asked at its active size and weighed at its
// total, engine names in any case, and a batch or context whose KV cache does not fit beside the
// weights refused with what does fit.
#include <gtest/gtest.h>

#include "decide/estimate.hpp"
#include "support/published_evidence.hpp"
#include "util/precision.hpp"

namespace ecocompute::decide {
namespace {

using ::ecocompute::testing::published_evidence;

EstimateRequest on_h200(const std::string& precision) {
  EstimateRequest r;
  r.gpu = "H200";
  r.engine = "llama.cpp";
  r.precision = precision;
  return r;
}

TEST(QuestionFit, AMixtureOfExpertsIsAskedAtItsActiveSizeAndWeighedAtItsTotal) {
  EstimateRequest moe = on_h200("Q4_K_M");
  moe.model = "Mixtral-8x7B";
  auto m = estimate(moe, published_evidence());
  ASSERT_TRUE(m) << m.error().describe();
  EstimateRequest dense = on_h200("Q4_K_M");
  dense.params_b = 12.9;  // Mixtral's published active size
  auto d = estimate(dense, published_evidence());
  ASSERT_TRUE(d) << d.error().describe();
  // ΔE is the model's at the active size; the weights are every expert's.
  EXPECT_DOUBLE_EQ(*m->delta_pct, *d->delta_pct);
  auto q4 = parse_precision("Q4_K_M");
  ASSERT_TRUE(q4);
  EXPECT_DOUBLE_EQ(m->prediction.memory.weights_gb, weight_gb(46.7, *q4));
  EXPECT_DOUBLE_EQ(d->prediction.memory.weights_gb, weight_gb(12.9, *q4));
  EXPECT_DOUBLE_EQ(m->prediction.memory.kv_cache_gb, d->prediction.memory.kv_cache_gb);
  EXPECT_DOUBLE_EQ(m->input["params_b"].get<double>(), 46.7);
  EXPECT_DOUBLE_EQ(m->input["active_params_b"].get<double>(), 12.9);
  EXPECT_NE(m->verdict.find("46.7 B model (12.9 B active)"), std::string::npos) << m->verdict;
}

TEST(QuestionFit, EngineNamesAreReadInAnyCase) {
  auto body = estimate_request_from_json(Json{{"params_b", 8}, {"gpu", "H200"}, {"precision", "Q4_K_M"}, {"engine", "LLAMA.CPP"}});
  ASSERT_TRUE(body) << body.error().describe();
  auto upper = estimate(*body, published_evidence());
  ASSERT_TRUE(upper) << upper.error().describe();
  EstimateRequest lower = on_h200("Q4_K_M");
  lower.params_b = 8;
  auto l = estimate(lower, published_evidence());
  ASSERT_TRUE(l);
  EXPECT_DOUBLE_EQ(*upper->delta_pct, *l->delta_pct);
}

TEST(QuestionFit, AKvCacheThatDoesNotFitBesideTheWeightsIsAnErrorThatSaysWhatFits) {
  EstimateRequest r = on_h200("Q4_K_M");
  r.params_b = 8;
  r.batch = 64;
  r.context = 32768;  // 4.3 GB of KV cache per sequence: 31 fit beside 4.9 GB of weights in 141 GB
  auto wide = estimate(r, published_evidence());
  ASSERT_FALSE(wide);
  EXPECT_EQ(wide.error().code(), ErrorCode::invalid_argument);
  EXPECT_NE(wide.error().message().find("at most batch 31 fits at context 32768"), std::string::npos) << wide.error().message();
  r.batch = 31;
  EXPECT_TRUE(estimate(r, published_evidence()));
  r.batch = 1;
  r.context = 1 << 20;
  auto longest = estimate(r, published_evidence());
  ASSERT_FALSE(longest);
  EXPECT_NE(longest.error().message().find("not even batch 1 fits at context 1048576"), std::string::npos) << longest.error().message();
  // Weights that do not fit at all are still answered, with the note (several GPUs would hold them).
  EstimateRequest big = on_h200("Q4_K_M");
  big.params_b = 400;
  auto answered = estimate(big, published_evidence());
  ASSERT_TRUE(answered) << answered.error().describe();
  EXPECT_FALSE(answered->prediction.memory.fits);
  EXPECT_NE(answered->verdict.find("does not fit on one GPU"), std::string::npos);
}

}  // namespace
}  // namespace ecocompute::decide
