// Tests of the reader of llama.cpp's perplexity README: every row of the fetched file with its source, the
// type names mapped to the project's, ΔPPL % derived two ways that agree, and a mutation corpus: each
// malformed table is an error naming the file and the line, and nothing is read.
#include "data/published_quality.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

#include "support/scratch_dir.hpp"

namespace ecocompute::data {
namespace {

namespace fs = std::filesystem;

const fs::path kLlamaSource = fs::path(ECOCOMPUTE_SOURCE_DIR) / "third_party" / "llama.cpp";
const fs::path kReadme = kLlamaSource / "tools" / "perplexity" / "README.md";

// The build fetches llama.cpp (scripts/fetch_third_party.sh) before anything compiles, so the file is there.
std::string readme_text() {
  std::string text = ::ecocompute::testing::slurp(kReadme);
  EXPECT_FALSE(text.empty()) << kReadme << " is missing: run scripts/fetch_third_party.sh";
  return text;
}

// The 1-based line of the first line that starts with `prefix` (after `from`).
int line_of(const std::string& text, const std::string& prefix, int from = 0) {
  int line = 1;
  for (std::size_t at = 0; at < text.size(); ++line) {
    const std::size_t end = text.find('\n', at);
    if (line > from && text.compare(at, prefix.size(), prefix) == 0) return line;
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return -1;
}

const PublishedQualityRow* find_quality_row(const QualityBatch& b, std::string_view table_start, std::string_view model,
                                    std::string_view precision, std::string_view imatrix) {
  for (const PublishedQualityRow& r : b.rows) {
    if (r.table.starts_with(table_start) && r.model == model && r.precision == precision && r.imatrix == imatrix) return &r;
  }
  return nullptr;
}

TEST(PublishedQuality, ReadsEveryRowOfTheFetchedReadmeWithItsSource) {
  auto batch = read_llama_cpp_quality(kLlamaSource);
  ASSERT_TRUE(batch) << batch.error().message();
  std::map<std::string, int> per_model;
  for (const PublishedQualityRow& r : batch->rows) ++per_model[r.model + " / " + r.imatrix];
  EXPECT_EQ(batch->rows.size(), 67u);
  EXPECT_EQ(per_model["LLaMA 3 8B / none"], 15);
  EXPECT_EQ(per_model["LLaMA 3 8B / WT 10m"], 19);
  EXPECT_EQ(per_model["LLaMA 3 8B / not stated"], 4);  // the LLaMA 2 vs 3 comparison
  EXPECT_EQ(per_model["LLaMA 2 7B / not stated"], 4);
  EXPECT_EQ(per_model["LLaMA 2 70B / not stated"], 13);

  const std::string text = readme_text();
  const PublishedQualityRow* q4_0 = find_quality_row(*batch, "LLaMA 3 8b Scoreboard", "LLaMA 3 8B", "Q4_0", "none");
  ASSERT_NE(q4_0, nullptr);
  EXPECT_EQ(q4_0->source_file, "tools/perplexity/README.md");
  const std::string stamp = ::ecocompute::testing::slurp(kLlamaSource / ".ecocompute-fetched");
  EXPECT_EQ(q4_0->source_commit + "\n", stamp);
  EXPECT_EQ(q4_0->table_revision, "f364eb6f");
  EXPECT_EQ(q4_0->backend, "CUDA");
  EXPECT_EQ(q4_0->corpus, "Wikitext-2 test");
  EXPECT_EQ(q4_0->line, line_of(text, "| q4_0 "));
  EXPECT_EQ(q4_0->arch_family, "llama");
  EXPECT_DOUBLE_EQ(q4_0->params_b, 8.0);
  EXPECT_DOUBLE_EQ(q4_0->delta_ppl->value, 0.468514);
  EXPECT_DOUBLE_EQ(*q4_0->delta_ppl->uncertainty, 0.007951);
  EXPECT_NEAR(q4_0->delta_ppl_pct->value, 0.468514 / (6.700147 - 0.468514) * 100, 1e-9);
  EXPECT_DOUBLE_EQ(q4_0->kld->value, 0.071940);
  EXPECT_DOUBLE_EQ(q4_0->mean_dp_pct->value, -1.588);
  EXPECT_DOUBLE_EQ(q4_0->rms_dp_pct->value, 8.434);
  EXPECT_DOUBLE_EQ(*q4_0->file_size_gib, 4.34);
  EXPECT_NE(q4_0->provenance().find("tools/perplexity/README.md:" + std::to_string(q4_0->line) + " @ llama.cpp 80fb11ac"),
            std::string::npos) << q4_0->provenance();
}

TEST(PublishedQuality, TheOldSeventyBillionTableSaysNoRevisionNorBackend) {
  auto batch = read_llama_cpp_quality(kReadme);  // the README itself: the tree is found above it
  ASSERT_TRUE(batch) << batch.error().message();
  const PublishedQualityRow* q4_0 = find_quality_row(*batch, "Llama 2 70B", "LLaMA 2 70B", "Q4_0", "not stated");
  ASSERT_NE(q4_0, nullptr);
  EXPECT_EQ(q4_0->table_revision, "");
  EXPECT_EQ(q4_0->backend, "not stated");
  EXPECT_DOUBLE_EQ(q4_0->delta_ppl_pct->value, 3.61);
  EXPECT_FALSE(q4_0->delta_ppl_pct->uncertainty);
  EXPECT_DOUBLE_EQ(q4_0->params_b, 70.0);
  EXPECT_EQ(q4_0->source_file, "tools/perplexity/README.md");
}

TEST(PublishedQuality, ThePplRatioAndThePplDifferenceGiveOneDeltaPercent) {
  auto batch = read_llama_cpp_quality(kLlamaSource);
  ASSERT_TRUE(batch) << batch.error().message();
  for (const char* type : {"Q2_K", "Q4_K_M", "Q6_K", "Q8_0"}) {
    const auto* board = find_quality_row(*batch, "LLaMA 3 8b Scoreboard", "LLaMA 3 8B", type, "none");
    const auto* ratio = find_quality_row(*batch, "LLaMA 2 vs. LLaMA 3", "LLaMA 3 8B", type, "not stated");
    ASSERT_TRUE(board != nullptr && ratio != nullptr) << type;
    EXPECT_NEAR(board->delta_ppl_pct->value, ratio->delta_ppl_pct->value, 0.001) << type;
    EXPECT_TRUE(ratio->same_top_p_pct.has_value()) << type;
  }
  const auto* l2 = find_quality_row(*batch, "LLaMA 2 vs. LLaMA 3", "LLaMA 2 7B", "Q4_K_M", "not stated");
  ASSERT_NE(l2, nullptr);
  EXPECT_NEAR(l2->delta_ppl_pct->value, 1.4242, 1e-9);
  EXPECT_NEAR(*l2->delta_ppl_pct->uncertainty, 0.0432, 1e-9);
}

TEST(PublishedQuality, TypeNamesMapToTheProjectsCaseInsensitively) {
  EXPECT_EQ(project_precision_name("q4_K_M"), "Q4_K_M");
  EXPECT_EQ(project_precision_name("iq4_NL"), "IQ4_NL");
  EXPECT_EQ(project_precision_name("f16"), "F16");
  EXPECT_EQ(project_precision_name("fp16"), "F16");
  EXPECT_EQ(project_precision_name("Q8_0"), "Q8_0");
  EXPECT_EQ(project_precision_name("q5_1"), std::nullopt);
  EXPECT_EQ(project_precision_name("nf4"), std::nullopt);  // a bitsandbytes format is no llama.cpp row

  auto batch = read_llama_cpp_quality(kLlamaSource);
  ASSERT_TRUE(batch) << batch.error().message();
  const auto* q5_1 = find_quality_row(*batch, "LLaMA 3 8b", "LLaMA 3 8B", "Q5_1", "none");
  ASSERT_NE(q5_1, nullptr);
  EXPECT_FALSE(q5_1->precision_known);
  EXPECT_EQ(q5_1->source_precision, "q5_1");
  bool noted = false;
  for (const std::string& note : batch->notes) noted = noted || note.starts_with("Q5_1 is not in the project's");
  EXPECT_TRUE(noted);
  EXPECT_NE(find_quality_row(*batch, "LLaMA 3 8b", "LLaMA 3 8B", "IQ4_NL", "WT 10m"), nullptr);
}

TEST(PublishedQuality, MissingSourceIsNotFound) {
  auto batch = read_llama_cpp_quality("/nonexistent/llama.cpp");
  ASSERT_FALSE(batch);
  EXPECT_EQ(batch.error().code(), ErrorCode::not_found);
}

}  // namespace
}  // namespace ecocompute::data
