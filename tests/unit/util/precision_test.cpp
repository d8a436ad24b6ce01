// Tests of the one precision table: both stacks' names, classes, sizes and published equivalents.
#include "util/precision.hpp"

#include <gtest/gtest.h>

#include <set>

namespace ecocompute {
namespace {

TEST(PrecisionTable, ParsesBothStacksNames) {
  EXPECT_EQ(parse_precision("nf4")->name, "NF4");
  EXPECT_EQ(parse_precision("q4_k_m")->name, "Q4_K_M");
  EXPECT_TRUE(parse_precision("Q4_K_M")->is_gguf());
  EXPECT_FALSE(parse_precision("INT8")->is_gguf());
  EXPECT_TRUE(parse_precision("float16")->is_baseline);
  // "F16" is the GGUF type; "FP16" and "BF16" the published stack's formats.
  EXPECT_TRUE(parse_precision("F16")->is_gguf());
  EXPECT_FALSE(parse_precision("FP16")->is_gguf());
  EXPECT_FALSE(parse_precision("BF16")->is_gguf());
  EXPECT_EQ(parse_precision("BF16")->default_engine, published_engine);
  EXPECT_EQ(parse_precision("Q8_0")->default_engine, "llama.cpp");
  auto unknown = parse_precision("int3");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message().find("int3"), std::string::npos);
}

TEST(PrecisionTable, GgufTypesRoundTripAndKnowTheirPublishedEquivalent) {
  for (const PrecisionInfo& row : gguf_precisions()) {
    EXPECT_EQ(parse_gguf_type(row.name).value(), row.gguf) << row.name;
    EXPECT_EQ(&precision_info(row.gguf), &row) << row.name;
  }
  EXPECT_EQ(*gguf_type_for_published_name("int8"), GgufType::Q8_0);
  auto published = parse_gguf_type("NF4");
  ASSERT_FALSE(published);
  EXPECT_NE(published.error().message().find("GGUF equivalent is IQ4_NL"), std::string::npos);
}

TEST(PrecisionTable, BitsPerWeightAreWholeFileFigures) {
  // llama-quantize's Llama-3-8B sizes: Q4_K_M 4.58 GiB × 2^30 × 8 / 8.03e9 = 4.90 bits; our H200 file
  // measured 4.894. NF4: 4 bits + one FP32 absmax per 64 weights = 4.5.
  EXPECT_DOUBLE_EQ(precision_info(GgufType::Q4_K_M).bits_per_weight, 4.90);
  EXPECT_DOUBLE_EQ(parse_precision("NF4")->bits_per_weight, 4.5);
  EXPECT_DOUBLE_EQ(weight_gb(7, *parse_precision("INT8")), 7.0);
  EXPECT_DOUBLE_EQ(weight_gb(3, *parse_precision("NF4")), 1.6875);  // 3e9 × 4.5 bits / 8
  // Every figure is a storage size between 2 and 32 bits.
  for (const PrecisionInfo& row : precision_table()) {
    EXPECT_GT(row.bits_per_weight, 2.0) << row.name;
    EXPECT_LE(row.bits_per_weight, 32.0) << row.name;
  }
}

TEST(PrecisionTable, NamesAreUniqueWithinAStack) {
  std::set<std::string_view> gguf;
  std::set<std::string_view> published;
  for (const PrecisionInfo& row : precision_table()) {
    EXPECT_TRUE((row.is_gguf() ? gguf : published).insert(row.name).second) << row.name;
  }
}

}  // namespace
}  // namespace ecocompute
