// The quality cost and its transfer rule, on the rows read from the fetched llama.cpp README: the
// optimize example (ΔPPL ≤ 1 % excludes Q4_0, keeps Q8_0 and Q6_K at 8 B), each basis and when it applies,
// the interval widening with distance, "unknown for this model", and the rule's constants recomputed from
// the published tables they rest on.
#include "data/quality_cost.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "data/dataset_import.hpp"
#include "support/scratch_dir.hpp"

namespace ecocompute::data {
namespace {

namespace fs = std::filesystem;

QualityEvidence readme_evidence() {
  auto batch = read_llama_cpp_quality(fs::path(ECOCOMPUTE_SOURCE_DIR) / "third_party" / "llama.cpp");
  EXPECT_TRUE(batch) << batch.error().message();
  QualityEvidence evidence;
  if (batch) evidence.published = batch->rows;
  return evidence;
}

TEST(FormatQualityCost, MaxDeltaPplOnePercentExcludesQ4_0AndKeepsQ8_0AndQ6_KAtEightBillion) {
  const QualityEvidence evidence = readme_evidence();
  for (std::string_view model : {std::string_view("Meta-Llama-3-8B"), std::string_view()}) {
    const FormatQualityCost q4_0 = quality_cost_for(evidence, 8.03, "llama", "Q4_0", model);
    const FormatQualityCost q8_0 = quality_cost_for(evidence, 8.03, "llama", "Q8_0", model);
    const FormatQualityCost q6_k = quality_cost_for(evidence, 8.03, "llama", "Q6_K", model);
    EXPECT_EQ(check_delta_ppl_pct(q4_0, 1.0), QualityCheck::exceeds) << to_string(check_delta_ppl_pct(q4_0, 1.0));
    EXPECT_EQ(check_delta_ppl_pct(q8_0, 1.0), QualityCheck::within);
    EXPECT_EQ(check_delta_ppl_pct(q6_k, 1.0), QualityCheck::within);
    EXPECT_NEAR(*q4_0.delta_ppl_pct, 7.518, 0.001);
    EXPECT_NEAR(*q6_k.delta_ppl_pct, 0.349, 0.001);
    EXPECT_NEAR(*q8_0.delta_ppl_pct, 0.0425, 0.0001);
    EXPECT_EQ(q4_0.imatrix, "none");
    EXPECT_NE(q4_0.source.find("tools/perplexity/README.md:"), std::string::npos) << q4_0.source;
  }
}

TEST(FormatQualityCost, OnlyTheNamedModelIsPublishedAnyOtherIsTransferred) {
  const QualityEvidence evidence = readme_evidence();
  const FormatQualityCost named = quality_cost_for(evidence, 8.03, "llama", "q4_k_m", "Meta-Llama-3-8B");
  EXPECT_EQ(named.basis, QualityBasis::published);
  EXPECT_EQ(named.basis_text, "published for LLaMA 3 8B");
  EXPECT_EQ(named.precision, "Q4_K_M");
  EXPECT_NEAR(*named.delta_ppl_pct, 2.816, 0.001);  // the row without an importance matrix
  EXPECT_NEAR(*named.delta_ppl_pct_high - *named.delta_ppl_pct, 1.96 * 0.0741379, 1e-4);
  EXPECT_NEAR(*named.kld, 0.031273, 1e-9);

  const FormatQualityCost unnamed = quality_cost_for(evidence, 8.03, "llama", "Q4_K_M");
  EXPECT_EQ(unnamed.basis, QualityBasis::transferred);
  EXPECT_EQ(unnamed.basis_text, "transferred from LLaMA 3 8B");
  EXPECT_NEAR(*unnamed.delta_ppl_pct_high / *unnamed.delta_ppl_pct, 2.0, 0.01);
  const FormatQualityCost other = quality_cost_for(evidence, 8.03, "llama", "Q4_K_M", "Llama-3.1-8B");
  EXPECT_EQ(other.basis, QualityBasis::transferred);  // 3.1 is another model
  const FormatQualityCost wrong_size = quality_cost_for(evidence, 70.0, "llama", "Q4_K_M", "Meta-Llama-3-8B");
  EXPECT_EQ(wrong_size.basis_text, "transferred from LLaMA 2 70B");  // the size contradicts the name
  EXPECT_EQ(quality_cost_for(evidence, 6.74, "llama", "Q6_K", "Llama-2-7b-hf").basis_text, "published for LLaMA 2 7B");
}

TEST(FormatQualityCost, TheIntervalWidensWithDistanceInSize) {
  const QualityEvidence evidence = readme_evidence();
  const FormatQualityCost at_8 = quality_cost_for(evidence, 8.0, "llama", "Q6_K");
  const FormatQualityCost at_14 = quality_cost_for(evidence, 14.0, "llama", "Q6_K");
  const FormatQualityCost at_30 = quality_cost_for(evidence, 30.0, "llama", "Q6_K");
  auto width = [](const FormatQualityCost& c) { return *c.delta_ppl_pct_high / *c.delta_ppl_pct; };
  EXPECT_LT(width(at_8), width(at_14));
  EXPECT_LT(width(at_14), width(at_30));
  EXPECT_NEAR(width(at_14), 2.0 * std::pow(1.5, std::log10(14.0 / 8.0)), 1e-9);
  // Nearer to 70 B than to 8 B (log scale): LLaMA 2 70B's figure, from the old table.
  const FormatQualityCost at_65 = quality_cost_for(evidence, 65.0, "llama", "Q4_K_M");
  EXPECT_EQ(at_65.basis_text, "transferred from LLaMA 2 70B");
  EXPECT_DOUBLE_EQ(*at_65.delta_ppl_pct, 1.20);
  // A type the 70 B table lacks comes from the nearest model that has it.
  const FormatQualityCost iq4 = quality_cost_for(evidence, 70.0, "llama", "IQ4_NL");
  EXPECT_EQ(iq4.basis_text, "transferred from LLaMA 3 8B");
  EXPECT_EQ(iq4.imatrix, "WT 10m");
  EXPECT_NEAR(width(iq4), 2.0 * std::pow(1.5, std::log10(70.0 / 8.0)), 1e-9);
  // Below 4 bits another model may differ much more.
  const FormatQualityCost q2 = quality_cost_for(evidence, 8.0, "llama", "Q2_K");
  EXPECT_NEAR(width(q2), 5.3, 0.01);
}

TEST(FormatQualityCost, UnknownForThisModelWhereTheRuleDoesNotHold) {
  const QualityEvidence evidence = readme_evidence();
  const FormatQualityCost qwen = quality_cost_for(evidence, 7.6, "qwen2", "Q4_K_M");
  EXPECT_EQ(qwen.basis, QualityBasis::none);
  EXPECT_FALSE(qwen.delta_ppl_pct);
  EXPECT_NE(qwen.reason.find("unknown for this model"), std::string::npos) << qwen.reason;
  EXPECT_NE(qwen.reason.find("qwen2"), std::string::npos) << qwen.reason;
  for (double size : {1.0, 3.0, 200.0}) {
    const FormatQualityCost far = quality_cost_for(evidence, size, "llama", "Q4_K_M");
    EXPECT_EQ(far.basis, QualityBasis::none) << size;
    EXPECT_NE(far.reason.find("3.5–140 B"), std::string::npos) << far.reason;
  }
  EXPECT_EQ(quality_cost_for(evidence, 3.6, "llama", "Q4_K_M").basis, QualityBasis::transferred);
  const FormatQualityCost bf16 = quality_cost_for(evidence, 8.0, "llama", "BF16");
  EXPECT_EQ(bf16.basis, QualityBasis::none);
  EXPECT_NE(bf16.reason.find("no published quality figure for BF16"), std::string::npos) << bf16.reason;
  EXPECT_EQ(check_delta_ppl_pct(bf16, 1.0), QualityCheck::unknown);
}

// The rule's factors are the largest ratios the README's tables show; recomputed here so that a change of
// the pinned source (or of the constants) that breaks the grounding fails.
TEST(FormatQualityCost, TheTransferFactorsAreTheLargestPublishedRatios) {
  const QualityEvidence evidence = readme_evidence();
  auto pct = [&](std::string_view table, std::string_view model, std::string_view type) {
    for (const PublishedQualityRow& r : evidence.published) {
      if (r.table.starts_with(table) && r.model == model && r.precision == type && r.imatrix != "WT 10m") {
        return r.delta_ppl_pct->value;
      }
    }
    ADD_FAILURE() << model << " " << type;
    return 1.0;
  };
  auto spread = [](double a, double b) { return std::max(a / b, b / a); };
  const QualityTransferRule rule;
  double model_max = 0;
  for (const char* type : {"Q4_K_M", "Q6_K", "Q8_0"}) {
    model_max = std::max(model_max, spread(pct("LLaMA 2 vs", "LLaMA 3 8B", type), pct("LLaMA 2 vs", "LLaMA 2 7B", type)));
  }
  EXPECT_LE(model_max, rule.model_factor);
  EXPECT_GE(model_max, 0.95 * rule.model_factor);
  const double low_bit = spread(pct("LLaMA 2 vs", "LLaMA 3 8B", "Q2_K"), pct("LLaMA 2 vs", "LLaMA 2 7B", "Q2_K"));
  EXPECT_LE(low_bit, rule.low_bit_model_factor);
  EXPECT_GE(low_bit, 0.95 * rule.low_bit_model_factor);
  double size_max = 0;  // LLaMA 2 7B → 70B is one decade
  for (const char* type : {"Q2_K", "Q4_K_M", "Q6_K"}) {
    size_max = std::max(size_max, spread(pct("LLaMA 2 vs", "LLaMA 2 7B", type), pct("Llama 2 70B", "LLaMA 2 70B", type)));
  }
  EXPECT_LE(size_max, rule.size_factor_per_decade + 0.01);
  EXPECT_GE(size_max, 0.95 * rule.size_factor_per_decade);
}

class QualityCostFixture : public ::ecocompute::testing::ScratchDirTest {};

// Our probe's rows in a real SQLite store: the fixture's own size gets them, an 8 B question never does.
TEST_F(QualityCostFixture, TheFixturesOwnSizeIsMeasuredOnTheFixture) {
  auto store = DatasetStore::open((dir_ / "store.sqlite").string());
  ASSERT_TRUE(store) << store.error().message();
  const fs::path session = fs::path(ECOCOMPUTE_SOURCE_DIR) / "data" / "sessions" / "h200-2026-12-01-fixture";
  for (const char* report : {"energy-F16.json", "energy-Q4_K_M.json"}) {
    auto batch = read_report_batch(session / report);
    ASSERT_TRUE(batch) << batch.error().message();
    ASSERT_TRUE(store->import(*batch));
  }
  auto batch = read_llama_cpp_quality(fs::path(ECOCOMPUTE_SOURCE_DIR) / "third_party" / "llama.cpp");
  ASSERT_TRUE(batch && store->import_quality(*batch));
  auto evidence = quality_evidence(*store);
  ASSERT_TRUE(evidence) << evidence.error().message();
  ASSERT_EQ(evidence->fixture.size(), 1u);
  EXPECT_EQ(evidence->published.size(), 67u);
  const double fixture_b = evidence->fixture.front().params_b;
  const FormatQualityCost own = quality_cost_for(*evidence, fixture_b, "llama", "Q4_K_M");
  EXPECT_EQ(own.basis, QualityBasis::measured_on_fixture);
  EXPECT_EQ(own.basis_text, "measured on the fixture");
  EXPECT_DOUBLE_EQ(*own.delta_ppl_pct, evidence->fixture.front().delta_ppl_pct);
  EXPECT_EQ(quality_cost_for(*evidence, 8.03, "llama", "Q4_K_M").basis, QualityBasis::transferred);
  EXPECT_EQ(quality_cost_for(*evidence, fixture_b, "qwen2", "Q4_K_M").basis, QualityBasis::none);
}

TEST(QualityCheckTest, AnIntervalAcrossTheCeilingIsUncertain) {
  FormatQualityCost cost;
  cost.delta_ppl_pct = 0.9;
  cost.delta_ppl_pct_low = 0.5;
  cost.delta_ppl_pct_high = 1.4;
  EXPECT_EQ(check_delta_ppl_pct(cost, 1.0), QualityCheck::uncertain);
  EXPECT_EQ(check_delta_ppl_pct(cost, 1.4), QualityCheck::within);
  EXPECT_EQ(check_delta_ppl_pct(cost, 0.4), QualityCheck::exceeds);
}

}  // namespace
}  // namespace ecocompute::data
