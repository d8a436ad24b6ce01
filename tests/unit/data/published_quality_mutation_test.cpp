// The mutation corpus of the perplexity README reader: each case breaks the real, fetched README in one
// place; the reader must refuse it with an error that names the file and the exact line, and return no row.
#include <gtest/gtest.h>

#include <filesystem>

#include "data/published_quality.hpp"
#include "support/scratch_dir.hpp"

namespace ecocompute::data {
namespace {

namespace fs = std::filesystem;

std::string real_readme() {
  return ::ecocompute::testing::slurp(fs::path(ECOCOMPUTE_SOURCE_DIR) / "third_party" / "llama.cpp" / "tools" / "perplexity" / "README.md");
}

// Splits into lines and joins back, so a mutation can address a line by its number.
std::vector<std::string> lines_of_text(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t at = 0;
  while (true) {
    const std::size_t end = text.find('\n', at);
    lines.push_back(text.substr(at, end == std::string::npos ? std::string::npos : end - at));
    if (end == std::string::npos) break;
    at = end + 1;
  }
  return lines;
}
std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) out += lines[i] + (i + 1 < lines.size() ? "\n" : "");
  return out;
}
// The 0-based index of the first line starting with `prefix`.
std::size_t index_of(const std::vector<std::string>& lines, const std::string& prefix) {
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].starts_with(prefix)) return i;
  }
  ADD_FAILURE() << "no line starts with " << prefix;
  return 0;
}
void replace_in(std::string& line, const std::string& from, const std::string& to) {
  const std::size_t at = line.find(from);
  ASSERT_NE(at, std::string::npos) << from << " not in " << line;
  line.replace(at, from.size(), to);
}

struct Mutation {
  const char* name;
  const char* anchor;     ///< the line the mutation touches starts with this
  int error_line_offset;  ///< the line the error must name, relative to the anchor
  const char* message;    ///< a phrase the error must contain
  void (*apply)(std::vector<std::string>& lines, std::size_t anchor);
};

const Mutation kMutations[] = {
    {"a row loses a cell", "| q6_K ", 0, "cells where the header has",
     [](auto& l, std::size_t i) { replace_in(l[i], "6.14 |", ""); }},
    {"a number is not one", "| q5_0 ", 0, "column 'KLD': '0.02x239 ±",
     [](auto& l, std::size_t i) { replace_in(l[i], "0.022239", "0.02x239"); }},
    {"an uncertainty is not one", "| q8_0 ", 0, "column 'PPL'",
     [](auto& l, std::size_t i) { replace_in(l[i], "±   0.037878", "±   n/a"); }},
    {"a negative uncertainty", "| q4_1 ", 0, "column 'ΔPPL'",
     [](auto& l, std::size_t i) { replace_in(l[i], "±   0.008030", "±  -0.008030"); }},
    {"the delimiter row is gone", "| Quantization | imatrix", 1, "without its delimiter row",
     [](auto& l, std::size_t i) { l.erase(l.begin() + static_cast<std::ptrdiff_t>(i) + 1); }},
    {"no ΔPPL column", "| Quantization | imatrix", 0, "without a ΔPPL",
     [](auto& l, std::size_t i) { replace_in(l[i], "ΔPPL  ", "DPPL  "); }},
    {"a row twice", "| q8_0 ", 1, "a second row for LLaMA 3 8B q8_0",
     [](auto& l, std::size_t i) { l.insert(l.begin() + static_cast<std::ptrdiff_t>(i), l[i]); }},
    {"an empty type", "| q3_K_M       | None", 0, "an empty Quantization cell",
     [](auto& l, std::size_t i) { replace_in(l[i], "q3_K_M", "      "); }},
    {"a negative file size", "| q2_K         | None", 0, "the model size must be > 0",
     [](auto& l, std::size_t i) { replace_in(l[i], " 2.96 ", "-2.96 "); }},
    {"a comparison column without a model", "| Metric          |", 0, "names no model",
     [](auto& l, std::size_t i) { replace_in(l[i], "L2 7b q2_K", "Lx 7b q2_K"); }},
    {"a comparison cell is not a number", "| Mean PPL ratio", 0, "column 'Mean PPL ratio'",
     [](auto& l, std::size_t i) { replace_in(l[i], "1.107955", "1.1O7955"); }},
    {"an old-table delta is text", "| Q6_K         | 52.70", 0, "column 'Delta to fp16'",
     [](auto& l, std::size_t i) { replace_in(l[i], "0.16%", "small"); }},
    {"an old-table row gains a cell", "| Q4_0         | 36.20", 0, "cells where the header has",
     [](auto& l, std::size_t i) { l[i] += " extra |"; }},
};

TEST(PublishedQualityMutations, EachMalformedTableIsAnErrorNamingFileAndLine) {
  const std::vector<std::string> original = lines_of_text(real_readme());
  ASSERT_GT(original.size(), 100u);
  for (const Mutation& m : kMutations) {
    std::vector<std::string> lines = original;
    const std::size_t anchor = index_of(lines, m.anchor);
    m.apply(lines, anchor);
    auto batch = parse_perplexity_readme(joined(lines), "tools/perplexity/README.md", "c0ffee", "mutated/README.md");
    ASSERT_FALSE(batch) << m.name << ": read " << batch->rows.size() << " rows";
    const std::string expected_where = "mutated/README.md:" + std::to_string(anchor + 1 + m.error_line_offset) + ": ";
    EXPECT_NE(batch.error().message().find(expected_where), std::string::npos) << m.name << ": " << batch.error().message();
    EXPECT_NE(batch.error().message().find(m.message), std::string::npos) << m.name << ": " << batch.error().message();
    EXPECT_EQ(batch.error().code(), ErrorCode::invalid_input) << m.name;
  }
}

TEST(PublishedQualityMutations, TheUnmutatedReadmeReads) {
  auto batch = parse_perplexity_readme(real_readme(), "tools/perplexity/README.md", "c0ffee", "README.md");
  ASSERT_TRUE(batch) << batch.error().message();
  EXPECT_EQ(batch->rows.size(), 67u);
  EXPECT_EQ(batch->rows.front().source_commit, "c0ffee");
}

TEST(PublishedQualityMutations, TextWithoutTablesIsAnError) {
  auto batch = parse_perplexity_readme("# Perplexity\n\nNo numbers here.\n", "f", "c", "empty/README.md");
  ASSERT_FALSE(batch);
  EXPECT_NE(batch.error().message().find("empty/README.md:1: no quality table found"), std::string::npos)
      << batch.error().message();
}

TEST(PublishedQualityMutations, PrintedNumbersParseOnlyWhenWhole) {
  auto n = parse_perplexity_readme("## LLaMA 3 8b Scoreboard\n\n| Quantization | ΔPPL |\n|---|---|\n| q8_0 | 0.5 ± 0.1 % |\n",
                                   "f", "c", "tiny.md");
  ASSERT_TRUE(n) << n.error().message();
  ASSERT_EQ(n->rows.size(), 1u);
  EXPECT_DOUBLE_EQ(n->rows[0].delta_ppl->value, 0.5);
  EXPECT_DOUBLE_EQ(*n->rows[0].delta_ppl->uncertainty, 0.1);
  EXPECT_EQ(n->rows[0].line, 5);
  EXPECT_EQ(n->rows[0].corpus, "not stated");
  EXPECT_EQ(n->rows[0].imatrix, "not stated");
}

}  // namespace
}  // namespace ecocompute::data
