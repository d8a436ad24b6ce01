// Tests of the precision table: names, llama_ftype numbers, classes, published equivalents.
#include "engine/precision.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <llama.h>

#include <map>
#include <set>
#include <string>

namespace ecocompute::engine {
namespace {
using ::testing::HasSubstr;

TEST(Precision, EveryRowRoundTripsThroughItsName) {
  for (const auto& row : gguf_precisions()) {
    auto parsed = parse_gguf_type(row.name);
    ASSERT_TRUE(parsed) << row.name;
    EXPECT_EQ(*parsed, row.gguf);
    EXPECT_EQ(to_string(row.gguf), row.name);
    auto from_ftype = gguf_type_from_llama_ftype(row.llama_ftype);
    ASSERT_TRUE(from_ftype) << row.name;
    EXPECT_EQ(*from_ftype, row.gguf);
  }
}

// llama_ftype_name()'s words for a type: "Q4_K - Medium" for Q4_K_M, "IQ3_S mix" for IQ3_M …
std::string llama_words(std::string_view name) {
  static const std::map<std::string_view, std::string> special{
      {"F32", "all F32"}, {"Q2_K", "Q2_K - Medium"}, {"IQ3_M", "IQ3_S mix"}};
  if (auto it = special.find(name); it != special.end()) return it->second;
  static const std::map<char, std::string> size{{'S', "Small"}, {'M', "Medium"}, {'L', "Large"}};
  if (name.size() == 6 && name.substr(2, 3) == "_K_") return std::string(name.substr(0, 4)) + " - " + size.at(name[5]);
  return std::string(name);
}

TEST(Precision, EveryGgufRowHasLlamaCppsFtype) {
  for (const auto& row : gguf_precisions()) {
    const std::string name = llama_ftype_name(static_cast<llama_ftype>(row.llama_ftype));
    EXPECT_NE(name.find(llama_words(row.name)), std::string::npos)
        << row.name << ": ftype " << row.llama_ftype << " is '" << name << "' in llama.cpp";
  }
}

TEST(Precision, PublishedNamesAreNotGgufTypes) {
  for (const auto& row : precision_table()) {
    if (row.is_gguf()) continue;
    EXPECT_EQ(row.llama_ftype, -1) << row.name;
    EXPECT_EQ(row.default_engine, published_engine) << row.name;
  }
}

TEST(Precision, TableHoldsTheTypesTheIssueRequires) {
  for (const char* name : {"F16", "BF16", "Q8_0", "Q6_K", "Q5_K_M", "Q4_K_M", "Q4_0", "IQ4_NL", "IQ4_XS", "Q3_K_M", "Q2_K"}) {
    EXPECT_TRUE(parse_gguf_type(name)) << name;
  }
}

TEST(Precision, NamesAndFtypesAreUnique) {
  std::set<std::string_view> names;
  std::set<int> ftypes;
  for (const auto& row : gguf_precisions()) {
    EXPECT_TRUE(names.insert(row.name).second) << row.name;
    EXPECT_TRUE(ftypes.insert(row.llama_ftype).second) << row.name;
  }
}

TEST(Precision, ParsingIgnoresCase) {
  EXPECT_EQ(*parse_gguf_type("q4_k_m"), GgufType::Q4_K_M);
  EXPECT_EQ(*parse_gguf_type("iq4_nl"), GgufType::IQ4_NL);
  EXPECT_EQ(*parse_gguf_type("bf16"), GgufType::BF16);
}

TEST(Precision, FtypeNumbersMatchLlamaH) {
  // Values of enum llama_ftype in the pinned llama.h.
  EXPECT_EQ(precision_info(GgufType::F16).llama_ftype, 1);
  EXPECT_EQ(precision_info(GgufType::Q4_0).llama_ftype, 2);
  EXPECT_EQ(precision_info(GgufType::Q8_0).llama_ftype, 7);
  EXPECT_EQ(precision_info(GgufType::Q2_K).llama_ftype, 10);
  EXPECT_EQ(precision_info(GgufType::Q3_K_M).llama_ftype, 12);
  EXPECT_EQ(precision_info(GgufType::Q4_K_M).llama_ftype, 15);
  EXPECT_EQ(precision_info(GgufType::Q5_K_M).llama_ftype, 17);
  EXPECT_EQ(precision_info(GgufType::Q6_K).llama_ftype, 18);
  EXPECT_EQ(precision_info(GgufType::IQ4_NL).llama_ftype, 25);
  EXPECT_EQ(precision_info(GgufType::IQ4_XS).llama_ftype, 30);
  EXPECT_EQ(precision_info(GgufType::BF16).llama_ftype, 32);
  EXPECT_STREQ(llama_ftype_name(static_cast<llama_ftype>(precision_info(GgufType::Q4_K_M).llama_ftype)), "Q4_K - Medium");
}

TEST(Precision, ClassesFollowTheMainWeightBits) {
  EXPECT_EQ(precision_info(GgufType::F16).precision_class, "16-bit");
  EXPECT_EQ(precision_info(GgufType::BF16).precision_class, "16-bit");
  EXPECT_EQ(precision_info(GgufType::Q8_0).precision_class, "8-bit");
  EXPECT_EQ(precision_info(GgufType::Q6_K).precision_class, "6-bit");
  EXPECT_EQ(precision_info(GgufType::Q5_K_M).precision_class, "5-bit");
  EXPECT_EQ(precision_info(GgufType::Q4_K_M).precision_class, "4-bit");
  EXPECT_EQ(precision_info(GgufType::Q4_0).precision_class, "4-bit");
  EXPECT_EQ(precision_info(GgufType::IQ4_NL).precision_class, "4-bit");
  EXPECT_EQ(precision_info(GgufType::IQ4_XS).precision_class, "4-bit");
  EXPECT_EQ(precision_info(GgufType::Q3_K_M).precision_class, "3-bit");
  EXPECT_EQ(precision_info(GgufType::Q2_K).precision_class, "2-bit");
}

TEST(Precision, PublishedNamesMapToTheirGgufEquivalents) {
  EXPECT_EQ(*gguf_type_for_published_name("FP16"), GgufType::F16);
  EXPECT_EQ(*gguf_type_for_published_name("int8"), GgufType::Q8_0);
  EXPECT_EQ(*gguf_type_for_published_name("NF4"), GgufType::IQ4_NL);
  EXPECT_EQ(precision_info(GgufType::F16).published_relation, "=");
  EXPECT_EQ(precision_info(GgufType::Q8_0).published_relation, "≈");
  EXPECT_EQ(precision_info(GgufType::IQ4_NL).published_relation, "≈");
  auto unknown = gguf_type_for_published_name("FP8");
  ASSERT_FALSE(unknown);
  EXPECT_THAT(unknown.error().message(), HasSubstr("NF4 ≈ IQ4_NL"));
}

TEST(Precision, UnknownTypeErrorListsTheValidOnes) {
  auto parsed = parse_gguf_type("Q4_K_X");
  ASSERT_FALSE(parsed);
  EXPECT_EQ(parsed.error().code(), ErrorCode::invalid_argument);
  EXPECT_THAT(parsed.error().message(), HasSubstr("unknown GGUF type 'Q4_K_X'"));
  EXPECT_THAT(parsed.error().message(), HasSubstr("F16, BF16, Q8_0, Q6_K"));
  EXPECT_THAT(parsed.error().message(), HasSubstr("IQ4_NL"));
}

TEST(Precision, PublishedNameIsNotAGgufTypeButTheErrorNamesItsEquivalent) {
  auto parsed = parse_gguf_type("NF4");
  ASSERT_FALSE(parsed);
  EXPECT_THAT(parsed.error().message(), HasSubstr("GGUF equivalent is IQ4_NL"));
}

TEST(Precision, FtypeOutsideTheTableIsAnError) {
  auto q5_1 = gguf_type_from_llama_ftype(9);  // LLAMA_FTYPE_MOSTLY_Q5_1: known to llama.cpp, not measured here
  ASSERT_FALSE(q5_1);
  EXPECT_EQ(q5_1.error().code(), ErrorCode::invalid_input);
  EXPECT_THAT(q5_1.error().message(), HasSubstr("file type 9"));
  EXPECT_FALSE(gguf_type_from_llama_ftype(999));
}

TEST(Precision, GuessedFlagIsIgnoredInFtypes) {
  EXPECT_EQ(*gguf_type_from_llama_ftype(15 | 1024), GgufType::Q4_K_M);  // 1024 = LLAMA_FTYPE_GUESSED
}

TEST(Precision, ImatrixRequirementFollowsLlamaQuant) {
  // tensor_requires_imatrix() in llama-quant.cpp: IQ2_XXS/XS/S, IQ3_XXS, IQ1_* and Q2_K_S's Q2_K tensors.
  EXPECT_FALSE(precision_info(GgufType::IQ4_NL).requires_imatrix);
  EXPECT_FALSE(precision_info(GgufType::IQ4_XS).requires_imatrix);
  EXPECT_FALSE(precision_info(GgufType::Q3_K_M).requires_imatrix);
  EXPECT_FALSE(precision_info(GgufType::Q2_K).requires_imatrix);
  EXPECT_TRUE(precision_info(GgufType::Q2_K_S).requires_imatrix);
  EXPECT_TRUE(precision_info(GgufType::IQ2_XXS).requires_imatrix);
  EXPECT_TRUE(precision_info(GgufType::IQ3_XXS).requires_imatrix);
}

TEST(Precision, OnlyFloatFormatsAreQuantizationSources) {
  for (const auto& row : gguf_precisions()) {
    const bool float_format = row.gguf == GgufType::F32 || row.gguf == GgufType::F16 || row.gguf == GgufType::BF16;
    EXPECT_EQ(row.is_source_format, float_format) << row.name;
  }
}

}  // namespace
}  // namespace ecocompute::engine
