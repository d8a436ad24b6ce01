// Tests of estimate: the published /v1/estimate shape over predict(), the recommendation rule, the
// question's spellings and its errors, the quality cost, anchors and crossover.
#include "decide/estimate.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "util/json_sink.hpp"

#include "support/published_evidence.hpp"

namespace ecocompute::decide {
namespace {

using ::ecocompute::testing::published_evidence;
using data::Basis;

EstimateRequest ask(double n, const std::string& arch, const std::string& precision) {
  EstimateRequest r;
  r.params_b = n;
  r.arch = arch;
  r.precision = precision;
  return r;
}

TEST(Estimate, RecommendationRule) {
  EXPECT_EQ(recommend(-10.0, -1.0), "quantize");
  EXPECT_EQ(recommend(1.0, 10.0), "do_not_quantize");
  EXPECT_EQ(recommend(-1.0, 1.0), "depends");
  EXPECT_EQ(recommend(std::nullopt, std::nullopt), "depends");
}

TEST(Estimate, IsThePredictionInThePublishedShape) {
  auto e = estimate(ask(7, "ada", "NF4"), published_evidence());
  ASSERT_TRUE(e) << e.error().describe();
  const Figure& d = *e->prediction.delta;
  EXPECT_DOUBLE_EQ(*e->delta_pct, d.value);
  EXPECT_DOUBLE_EQ(*e->ci_low_pct, d.low);
  EXPECT_DOUBLE_EQ(*e->ci_high_pct, d.high);
  EXPECT_EQ(e->basis, d.basis.basis);
  EXPECT_EQ(e->recommendation, recommend(d.low, d.high));
  EXPECT_EQ(e->confidence, e->basis == Basis::measured ? "high" : e->basis == Basis::interpolated ? "medium" : "low");
  const Json j = *e;
  for (const char* field : {"input", "delta_pct", "ci", "basis", "confidence", "recommendation", "verdict", "crossover_b", "anchors",
                            "arch_used", "modelled", "weight_gb", "weight_gb_fp16", "notes", "figure_basis", "energy_estimate",
                            "memory", "band", "quality_cost"}) {
    EXPECT_TRUE(j.contains(field)) << field;
  }
  EXPECT_EQ(j["ci"][0].get<double>(), d.low);
  EXPECT_FALSE(e->anchors.empty());
  for (const Anchor& a : e->anchors) { EXPECT_EQ(a.batch, 1); }
}

TEST(Estimate, ThreeBillionNf4SavesButCostsPerplexity) {
  // Named: the model's own measured figure (RTX 4090, bitsandbytes, real weights).
  EstimateRequest named = ask(3, "ada", "NF4");
  named.model = "Qwen2.5-3B";
  auto e = estimate(named, published_evidence());
  ASSERT_TRUE(e) << e.error().describe();
  EXPECT_NEAR(*e->quality_cost.delta_ppl_pct, 27.6, 0.1);
  EXPECT_EQ(e->quality_cost.basis, data::QualityBasis::measured);
  EXPECT_EQ(e->quality_cost.basis_text, "measured on Qwen/Qwen2.5-3B");
  EXPECT_NE(e->verdict.find("Quality: perplexity +27.6 %"), std::string::npos) << e->verdict;
  // Unnamed at 2.9 B: the nearest measured model's figure, transferred with the spread the five measured
  // models show (NF4 +5.0 … +27.6 %: ×5.5), never called measured.
  auto near = estimate(ask(2.9, "ada", "NF4"), published_evidence());
  ASSERT_TRUE(near) << near.error().describe();
  const data::FormatQualityCost& q = near->quality_cost;
  EXPECT_EQ(q.basis, data::QualityBasis::transferred);
  EXPECT_EQ(q.evidence_model, "Qwen/Qwen2.5-3B");
  ASSERT_TRUE(q.delta_ppl_pct_low && q.delta_ppl_pct_high);
  EXPECT_LT(*q.delta_ppl_pct_low, 5.1);
  EXPECT_GT(*q.delta_ppl_pct_high / *q.delta_ppl_pct, 5.5);
  EXPECT_EQ(data::check_delta_ppl_pct(q, 1.0), data::QualityCheck::exceeds);
}

// The H200 sessions use synthetic weights: their quality comes from llama.cpp's published table, with
// its own basis beside the measured ΔE.
TEST(Estimate, EveryGgufAnswerStatesItsQualityCostWithABasisAndASource) {
  EstimateRequest r = ask(8.03, "", "Q4_K_M");
  r.gpu = "H200";
  r.engine = "llama.cpp";
  auto unnamed = estimate(r, published_evidence());
  ASSERT_TRUE(unnamed) << unnamed.error().describe();
  EXPECT_EQ(unnamed->quality_cost.basis, data::QualityBasis::transferred);
  EXPECT_EQ(unnamed->quality_cost.basis_text, "transferred from LLaMA 3 8B");
  EXPECT_NE(unnamed->quality_cost.note.find("not named"), std::string::npos) << unnamed->quality_cost.note;
  EXPECT_NE(unnamed->quality_cost.source.find("tools/perplexity/README.md:"), std::string::npos) << unnamed->quality_cost.source;
  EXPECT_EQ(unnamed->verdict.find("no measured quality cost"), std::string::npos) << unnamed->verdict;
  EXPECT_NE(unnamed->verdict.find("Quality: perplexity +2.82 %"), std::string::npos) << unnamed->verdict;
  // The energy basis stays the energy's (interpolated between the measured places here), whatever the
  // quality's basis.
  EXPECT_EQ(unnamed->basis, Basis::interpolated);
  const Json j = *unnamed;
  EXPECT_EQ(j["basis"], "interpolated");
  EXPECT_EQ(j["quality_cost"]["basis"], "transferred");
  EXPECT_FALSE(j["figure_basis"].contains("quality"));

  r.model = "Meta-Llama-3-8B";
  auto named = estimate(r, published_evidence());
  ASSERT_TRUE(named) << named.error().describe();
  EXPECT_EQ(named->quality_cost.basis, data::QualityBasis::published);
  EXPECT_TRUE(named->quality_cost.note.empty());

  r.model = "Qwen2.5-14B";
  r.params_b.reset();
  auto qwen = estimate(r, published_evidence());
  ASSERT_TRUE(qwen) << qwen.error().describe();
  EXPECT_EQ(qwen->quality_cost.basis, data::QualityBasis::none);
  EXPECT_NE(qwen->quality_cost.reason.find("qwen2"), std::string::npos) << qwen->quality_cost.reason;
  EXPECT_NE(qwen->verdict.find("Quality: unknown for this model"), std::string::npos) << qwen->verdict;
}

TEST(Estimate, TheCrossoverLiesWhereTheModelsMeanChangesSign) {
  auto e = estimate(ask(3, "ada", "NF4"), published_evidence());
  ASSERT_TRUE(e && e->crossover_b);
  EXPECT_GT(*e->crossover_b, 0.5);
  EXPECT_LT(*e->crossover_b, 7.0);
  EstimateRequest at = ask(*e->crossover_b, "ada", "NF4");
  auto zero = estimate(at, published_evidence());
  ASSERT_TRUE(zero);
  EXPECT_NEAR(zero->prediction.delta->log_mean, 0.0, 1e-6);
}

TEST(Estimate, ModelNameAndFreeText) {
  EstimateRequest r;
  r.model = "Qwen2.5-14B";
  r.gpu = "A100";
  auto e = estimate(r, published_evidence());
  ASSERT_TRUE(e) << e.error().describe();
  EXPECT_DOUBLE_EQ(e->input["params_b"].get<double>(), 14.0);
  EXPECT_EQ(e->prediction.arch_used, "ampere");
  EstimateRequest q;
  q.q = "7B on RTX 4090 INT8";
  auto f = estimate(q, published_evidence());
  ASSERT_TRUE(f) << f.error().describe();
  EXPECT_DOUBLE_EQ(f->input["params_b"].get<double>(), 7.0);
  EXPECT_EQ(f->input["precision"], "INT8");
  EXPECT_EQ(f->prediction.arch_used, "ada");
}

TEST(Estimate, BadQuestionsAreClearErrors) {
  auto negative = estimate(ask(-3, "ada", "NF4"), published_evidence());
  ASSERT_FALSE(negative);
  EXPECT_NE(negative.error().message().find("params_b"), std::string::npos);
  EXPECT_FALSE(estimate(ask(std::nan(""), "ada", "NF4"), published_evidence()));
  auto arch = estimate(ask(3, "volta9", "NF4"), published_evidence());
  ASSERT_FALSE(arch);
  EXPECT_NE(arch.error().message().find("unknown GPU architecture 'volta9'"), std::string::npos);
  auto precision = estimate(ask(3, "ada", "Q9_Z"), published_evidence());
  ASSERT_FALSE(precision);
  EXPECT_NE(precision.error().message().find("unknown precision 'Q9_Z'"), std::string::npos);
  EXPECT_FALSE(estimate(ask(3, "ada", "FP16"), published_evidence()));
  EstimateRequest no_size;
  no_size.arch = "ada";
  EXPECT_FALSE(estimate(no_size, published_evidence()));
  EstimateRequest zero_batch = ask(3, "ada", "NF4");
  zero_batch.batch = 0;
  EXPECT_FALSE(estimate(zero_batch, published_evidence()));
  auto body = estimate_request_from_json(Json{{"N", "abc"}});
  ASSERT_FALSE(body);
  EXPECT_NE(body.error().message().find("'N'"), std::string::npos);
  auto good = estimate_request_from_json(Json{{"N", 7}, {"arch", "ada"}, {"ctx", 4096}});
  ASSERT_TRUE(good);
  EXPECT_EQ(good->context, 4096);
}

// The server writes an estimate straight to text; the CLI and MCP build the document. Every kind of
// answer (measured, read between, extrapolated, borrowed, past the memory, with a context, with and
// without a quality figure, free text with quotes and non-ASCII) must come out as the same bytes.
TEST(Estimate, TextWrittenStraightIsTheDocumentsDumpForEveryKindOfAnswer) {
  std::vector<EstimateRequest> questions{ask(7, "ada", "NF4"), ask(70, "ada", "NF4"), ask(0.3, "ada", "INT8")};
  auto on = [](double n, const std::string& gpu, const std::string& precision) {
    EstimateRequest r;
    r.params_b = n;
    r.gpu = gpu;
    r.precision = precision;
    return r;
  };
  questions.push_back(on(8.030261248, "H200", "Q4_K_M"));
  questions.push_back(on(7.3, "H200", "Q4_K_M"));
  questions.push_back(on(400, "H200", "Q4_K_M"));
  questions.push_back(on(13, "H100", "Q6_K"));
  questions.back().batch = 20;
  questions.push_back(on(8, "H200", "Q8_0"));
  questions.back().context = 8192;
  questions.push_back(ask(8, "ampere", "Q4_K_M"));
  questions.back().allow_borrow = true;
  EstimateRequest named;
  named.model = "Meta-Llama-3-8B";
  named.gpu = "H200";
  named.precision = "Q4_K_M";
  questions.push_back(named);
  EstimateRequest text;
  text.q = "Mixtral-8x7B on A100 \"int8\" \\ batch 4 – ctx 2k";
  questions.push_back(text);
  int answered = 0;
  for (const EstimateRequest& question : questions) {
    auto e = estimate(question, published_evidence());
    if (!e) continue;
    ++answered;
    std::string written;
    JsonTextSink sink(written);
    write_json(sink, *e);
    EXPECT_EQ(written, Json(*e).dump(-1, ' ', false, Json::error_handler_t::replace)) << Json(*e)["input"].dump();
  }
  EXPECT_GE(answered, 10);
}

}  // namespace
}  // namespace ecocompute::decide
