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

// Real-weights rows as the RTX 4090 bitsandbytes runs give them (tests/unit/data/dataset_store_test.cpp
// reads the same figures from data/published).
QualityEvidence measured_evidence() {
  QualityEvidence evidence = readme_evidence();
  const std::pair<const char*, double> nf4[] = {{"Qwen/Qwen2-0.5B", 9.452}, {"TinyLlama/TinyLlama-1.1B-Chat-v1.0", 5.005},
                                                {"Qwen/Qwen2.5-3B", 27.564}, {"Qwen/Qwen2-7B", 12.057}};
  const double sizes[] = {0.5, 1.1, 3.0, 7.0};
  for (std::size_t i = 0; i < 4; ++i) {
    evidence.measured.push_back(MeasuredQuality{nf4[i].first, sizes[i], "transformers+bitsandbytes", "NF4", nf4[i].second, std::nullopt,
                                                "RTX 4090", "session s, row " + std::to_string(i), "", ""});  // names worked out when read
  }
  return evidence;
}

TEST(FormatQualityCost, ANamedModelsOwnRunIsMeasuredAnyOtherModelsIsTransferredWithTheMeasuredSpread) {
  const QualityEvidence evidence = measured_evidence();
  const QualityQuestion named{.size_b = 3.09, .model = "Qwen2.5-3B", .engine = "Transformers+BitsAndBytes", .precision = "nf4", .arch = {}};
  const FormatQualityCost own = quality_cost_for(evidence, named);
  EXPECT_EQ(own.basis, QualityBasis::measured);
  EXPECT_EQ(own.basis_text, "measured on Qwen/Qwen2.5-3B");
  EXPECT_DOUBLE_EQ(*own.delta_ppl_pct, 27.564);
  EXPECT_NE(own.source.find("RTX 4090"), std::string::npos) << own.source;

  QualityQuestion other = named;
  other.model = "Qwen2.5-3B-Instruct-variant-of-another-size";
  other.size_b = 2.0;
  const FormatQualityCost moved = quality_cost_for(evidence, other);
  EXPECT_EQ(moved.basis, QualityBasis::transferred);
  EXPECT_EQ(moved.evidence_model, "Qwen/Qwen2.5-3B");  // nearest in log size to 2 B
  // ×/÷ (27.564 / 5.005) × 1.5^|log10(2 / 3)|.
  const double factor = 27.564 / 5.005 * std::pow(1.5, std::abs(std::log10(2.0 / 3.0)));
  EXPECT_NEAR(*moved.delta_ppl_pct_high / *moved.delta_ppl_pct, factor, 1e-9);
  EXPECT_NE(moved.uncertainty.find("4 measured models"), std::string::npos) << moved.uncertainty;

  QualityQuestion far = named;
  far.size_b = 70;
  EXPECT_EQ(quality_cost_for(evidence, far).basis, QualityBasis::none);  // beyond 7 B × 2
  // Another engine's measurement never answers: llama.cpp has no NF4 row anywhere.
  QualityQuestion gguf = named;
  gguf.engine = "llama.cpp";
  EXPECT_EQ(quality_cost_for(evidence, gguf).basis, QualityBasis::none);
}

// A store of many sessions holds many rows of one engine and format: a question reads them by size. The
// answers are those of reading every row in order: the nearest in log size, of rows equally near the first
// (equal sizes of different models, and sizes exactly as far on either side), the named model's runs in
// row order, whether the rows were grouped when added or are grouped when read.
TEST(FormatQualityCost, ManyRowsAreReadByTheirSizeAndAnswerAsReadingThemInOrderDoes) {
  QualityEvidence unsorted = readme_evidence();
  const std::pair<const char*, double> models[] = {{"Qwen/Qwen2-0.5B", 0.5}, {"TinyLlama/TinyLlama-1.1B", 1.0}, {"Qwen/Qwen2.5-3B", 3.0},
                                                   {"Other/Model-1B", 1.0}, {"Qwen/Qwen2-7B", 7.0},          {"Wide/Model-4B", 4.0}};
  for (int i = 0; i < 300; ++i) {
    const auto& [model, size] = models[(i * 7 + i / 11) % 6];
    unsorted.measured.push_back(MeasuredQuality{model, size, "transformers+bitsandbytes", "NF4", 2.0 + (i * 37 % 101) / 4.0, std::nullopt,
                                                "RTX 4090", "session s" + std::to_string(i), "", ""});
  }
  QualityEvidence grouped = unsorted;
  grouped.measured_groups = group_measured(grouped.measured);
  grouped.grouped_rows = grouped.measured.size();
  ASSERT_EQ(grouped.measured_groups.size(), 1u);
  int transferred = 0, measured = 0;
  for (double size : {0.2, 0.5, 0.7, 1.0, 1.5, 2.0, 2.9, 3.0, 3.5, 5.0, 7.0, 9.0, 14.0, 30.0}) {
    for (const char* model : {"", "Qwen2.5-3B", "TinyLlama-1.1B", "Model-1B"}) {
      const QualityQuestion q{.size_b = size, .model = model, .engine = "transformers+bitsandbytes", .precision = "NF4", .arch = {}};
      const FormatQualityCost a = quality_cost_for(unsorted, q), b = quality_cost_for(grouped, q);
      Json ja, jb;
      to_json(ja, a);
      to_json(jb, b);
      EXPECT_EQ(ja, jb) << size << " " << model;
      if (a.basis == QualityBasis::measured) {
        // The named model's runs within the size tolerance, whatever other models share its size: their mean,
        // the first in row order named.
        std::vector<const MeasuredQuality*> own;
        for (const MeasuredQuality& m : unsorted.measured) {
          const std::string name = m.model.substr(m.model.rfind('/') + 1);
          if (name == model && std::abs(std::log(size / m.params_b)) <= std::log(1.15)) own.push_back(&m);
        }
        ASSERT_FALSE(own.empty()) << size << " " << model;
        double sum = 0;
        for (const MeasuredQuality* m : own) sum += m->delta_ppl_pct;
        EXPECT_NEAR(*a.delta_ppl_pct, sum / static_cast<double>(own.size()), 1e-9) << size << " " << model;
        EXPECT_EQ(a.evidence_model, own.front()->model);
        EXPECT_NE(a.source.find(own.front()->source), std::string::npos) << a.source;
        ++measured;
        continue;
      }
      if (a.basis != QualityBasis::transferred) continue;
      ++transferred;
      // The first row in order among the nearest in log size.
      const MeasuredQuality* nearest = nullptr;
      for (const MeasuredQuality& m : unsorted.measured) {
        if (nearest == nullptr || std::abs(std::log(size / m.params_b)) < std::abs(std::log(size / nearest->params_b))) nearest = &m;
      }
      EXPECT_EQ(a.evidence_model, nearest->model) << size << " " << model;
      EXPECT_EQ(a.delta_ppl_pct, nearest->delta_ppl_pct) << size << " " << model;
    }
  }
  EXPECT_GT(transferred, 20);
  EXPECT_EQ(measured, 4);  // Qwen2.5-3B at 2.9 and 3.0, TinyLlama-1.1B and Model-1B at 1.0 (two models of one size)
}

TEST(FormatQualityCost, PublishedLlamaCppFiguresAnswerLlamaCppOnlyAndAnUnnamedModelIsAssumedLlama) {
  const QualityEvidence evidence = readme_evidence();
  const FormatQualityCost unnamed = quality_cost_for(evidence, QualityQuestion{.size_b = 8.03, .model = {}, .engine = "llama.cpp", .precision = "Q4_0", .arch = {}});
  EXPECT_EQ(unnamed.basis, QualityBasis::transferred);
  EXPECT_NE(unnamed.note.find("the model is not named"), std::string::npos) << unnamed.note;
  const FormatQualityCost mystery = quality_cost_for(evidence, QualityQuestion{.size_b = 8.03, .model = "house-model-8b", .engine = "llama.cpp", .precision = "Q4_0", .arch = {}});
  EXPECT_NE(mystery.note.find("architecture of house-model-8b is not known"), std::string::npos) << mystery.note;
  const FormatQualityCost mistral = quality_cost_for(evidence, QualityQuestion{.size_b = 7.24, .model = "Mistral-7B-v0.3", .engine = "llama.cpp", .precision = "Q4_0", .arch = {}});
  EXPECT_EQ(mistral.basis, QualityBasis::transferred);
  EXPECT_TRUE(mistral.note.empty()) << mistral.note;
  EXPECT_EQ(quality_cost_for(evidence, QualityQuestion{.size_b = 3.8, .model = "Phi-3-mini", .engine = "llama.cpp", .precision = "Q4_0", .arch = {}}).basis,
            QualityBasis::none);
  // The same type quantized by another engine is not llama.cpp's figure.
  EXPECT_EQ(quality_cost_for(evidence, QualityQuestion{.size_b = 8.03, .model = {}, .engine = "vllm", .precision = "Q4_0", .arch = {}}).basis,
            QualityBasis::none);
}

TEST(FormatQualityCost, ModelArchFamilyReadsTheName) {
  EXPECT_EQ(model_arch_family("meta-llama/Meta-Llama-3-8B"), "llama");
  EXPECT_EQ(model_arch_family("TinyLlama/TinyLlama-1.1B-Chat-v1.0"), "llama");
  EXPECT_EQ(model_arch_family("Mistral-7B"), "llama");
  EXPECT_EQ(model_arch_family("Qwen/Qwen2.5-14B"), "qwen2");
  EXPECT_EQ(model_arch_family("google/gemma-2-9b"), "gemma");
  EXPECT_EQ(model_arch_family("my-model"), "");
  EXPECT_EQ(model_arch_family(""), "");
}

TEST(QualityCheckTest, KldUsesItsOwnInterval) {
  const QualityEvidence evidence = readme_evidence();
  const FormatQualityCost q4_0 = quality_cost_for(evidence, 8.03, "llama", "Q4_0", "Meta-Llama-3-8B");
  ASSERT_TRUE(q4_0.kld && q4_0.kld_low && q4_0.kld_high);
  EXPECT_LT(*q4_0.kld_low, *q4_0.kld);
  EXPECT_EQ(check_kld(q4_0, *q4_0.kld_high), QualityCheck::within);
  EXPECT_EQ(check_kld(q4_0, *q4_0.kld), QualityCheck::uncertain);
  EXPECT_EQ(check_kld(q4_0, *q4_0.kld_low / 2), QualityCheck::exceeds);
  FormatQualityCost none;
  EXPECT_EQ(check_kld(none, 1.0), QualityCheck::unknown);
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
