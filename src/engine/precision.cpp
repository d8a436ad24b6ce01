// The precision table: GGUF types, their llama_ftype numbers, classes and published equivalents.
#include "engine/precision.hpp"

#include <llama.h>

#include <algorithm>
#include <array>
#include <cctype>

namespace ecocompute::engine {
namespace {

// main_type bits: the size of the ftype's default tensor type as ggml defines it (block bytes × 8 /
// block elements, e.g. Q4_K: 144 B per 256 weights = 4.5). Requires-imatrix follows llama-quant.cpp's
// tensor_requires_imatrix(): IQ1_*, IQ2_XXS/XS/S and IQ3_XXS as target tensor types, and Q2_K tensors of a
// Q2_K_S file; IQ4_NL, IQ4_XS, IQ3_S/M, Q2_K and the K-quants are allowed without one.
constexpr std::array<PrecisionInfo, 25> kTable{{
    {GgufType::F32, "F32", LLAMA_FTYPE_ALL_F32, "32-bit", 32.0, false, true, "", ""},
    {GgufType::F16, "F16", LLAMA_FTYPE_MOSTLY_F16, "16-bit", 16.0, false, true, "FP16", "="},
    {GgufType::BF16, "BF16", LLAMA_FTYPE_MOSTLY_BF16, "16-bit", 16.0, false, true, "", ""},
    {GgufType::Q8_0, "Q8_0", LLAMA_FTYPE_MOSTLY_Q8_0, "8-bit", 8.5, false, false, "INT8", "≈"},
    {GgufType::Q6_K, "Q6_K", LLAMA_FTYPE_MOSTLY_Q6_K, "6-bit", 6.5625, false, false, "", ""},
    {GgufType::Q5_K_M, "Q5_K_M", LLAMA_FTYPE_MOSTLY_Q5_K_M, "5-bit", 5.5, false, false, "", ""},
    {GgufType::Q5_K_S, "Q5_K_S", LLAMA_FTYPE_MOSTLY_Q5_K_S, "5-bit", 5.5, false, false, "", ""},
    {GgufType::Q5_0, "Q5_0", LLAMA_FTYPE_MOSTLY_Q5_0, "5-bit", 5.5, false, false, "", ""},
    {GgufType::Q4_K_M, "Q4_K_M", LLAMA_FTYPE_MOSTLY_Q4_K_M, "4-bit", 4.5, false, false, "", ""},
    {GgufType::Q4_K_S, "Q4_K_S", LLAMA_FTYPE_MOSTLY_Q4_K_S, "4-bit", 4.5, false, false, "", ""},
    {GgufType::Q4_0, "Q4_0", LLAMA_FTYPE_MOSTLY_Q4_0, "4-bit", 4.5, false, false, "", ""},
    {GgufType::IQ4_NL, "IQ4_NL", LLAMA_FTYPE_MOSTLY_IQ4_NL, "4-bit", 4.5, false, false, "NF4", "≈"},
    {GgufType::IQ4_XS, "IQ4_XS", LLAMA_FTYPE_MOSTLY_IQ4_XS, "4-bit", 4.25, false, false, "", ""},
    {GgufType::Q3_K_L, "Q3_K_L", LLAMA_FTYPE_MOSTLY_Q3_K_L, "3-bit", 3.4375, false, false, "", ""},
    {GgufType::Q3_K_M, "Q3_K_M", LLAMA_FTYPE_MOSTLY_Q3_K_M, "3-bit", 3.4375, false, false, "", ""},
    {GgufType::Q3_K_S, "Q3_K_S", LLAMA_FTYPE_MOSTLY_Q3_K_S, "3-bit", 3.4375, false, false, "", ""},
    {GgufType::IQ3_M, "IQ3_M", LLAMA_FTYPE_MOSTLY_IQ3_M, "3-bit", 3.4375, false, false, "", ""},
    {GgufType::IQ3_S, "IQ3_S", LLAMA_FTYPE_MOSTLY_IQ3_S, "3-bit", 3.4375, false, false, "", ""},
    {GgufType::IQ3_XXS, "IQ3_XXS", LLAMA_FTYPE_MOSTLY_IQ3_XXS, "3-bit", 3.0625, true, false, "", ""},
    {GgufType::Q2_K, "Q2_K", LLAMA_FTYPE_MOSTLY_Q2_K, "2-bit", 2.625, false, false, "", ""},
    {GgufType::Q2_K_S, "Q2_K_S", LLAMA_FTYPE_MOSTLY_Q2_K_S, "2-bit", 2.625, true, false, "", ""},
    {GgufType::IQ2_M, "IQ2_M", LLAMA_FTYPE_MOSTLY_IQ2_M, "2-bit", 2.5, true, false, "", ""},
    {GgufType::IQ2_S, "IQ2_S", LLAMA_FTYPE_MOSTLY_IQ2_S, "2-bit", 2.3125, true, false, "", ""},
    {GgufType::IQ2_XS, "IQ2_XS", LLAMA_FTYPE_MOSTLY_IQ2_XS, "2-bit", 2.3125, true, false, "", ""},
    {GgufType::IQ2_XXS, "IQ2_XXS", LLAMA_FTYPE_MOSTLY_IQ2_XXS, "2-bit", 2.0625, true, false, "", ""},
}};

constexpr bool table_in_enum_order() {
  for (std::size_t i = 0; i < kTable.size(); ++i) {
    if (static_cast<std::size_t>(kTable[i].type) != i) return false;
  }
  return true;
}
static_assert(table_in_enum_order(), "kTable rows must follow GgufType's order");

bool equals_ignore_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::toupper(static_cast<unsigned char>(x)) == std::toupper(static_cast<unsigned char>(y));
         });
}

std::string published_names() {
  std::string names;
  for (const auto& row : kTable) {
    if (row.published_name.empty()) continue;
    if (!names.empty()) names += ", ";
    names += std::string(row.published_name) + " " + std::string(row.published_relation) + " " + std::string(row.name);
  }
  return names;
}
}  // namespace

std::span<const PrecisionInfo> precision_table() noexcept { return kTable; }

const PrecisionInfo& precision_info(GgufType type) noexcept { return kTable[static_cast<std::size_t>(type)]; }

std::string_view to_string(GgufType type) noexcept { return precision_info(type).name; }

std::string valid_gguf_type_names() {
  std::string names;
  for (const auto& row : kTable) {
    if (!names.empty()) names += ", ";
    names += row.name;
  }
  return names;
}

Result<GgufType> parse_gguf_type(std::string_view text) {
  for (const auto& row : kTable) {
    if (equals_ignore_case(text, row.name)) return row.type;
  }
  for (const auto& row : kTable) {
    if (!row.published_name.empty() && equals_ignore_case(text, row.published_name)) {
      return unexpected(ErrorCode::invalid_argument,
                        "'" + std::string(text) + "' is a published (transformers/bitsandbytes) format name, not a GGUF type; "
                        "its GGUF equivalent is " + std::string(row.name) + " (" + std::string(row.published_name) + " " +
                            std::string(row.published_relation) + " " + std::string(row.name) + ")");
    }
  }
  return unexpected(ErrorCode::invalid_argument,
                    "unknown GGUF type '" + std::string(text) + "'; valid types: " + valid_gguf_type_names());
}

Result<GgufType> gguf_type_from_llama_ftype(int llama_ftype) {
  // LLAMA_FTYPE_GUESSED is a flag llama.cpp ORs in when the file does not say.
  const int ftype = llama_ftype & ~static_cast<int>(LLAMA_FTYPE_GUESSED);
  for (const auto& row : kTable) {
    if (row.llama_ftype == ftype) return row.type;
  }
  return unexpected(ErrorCode::invalid_input,
                    "GGUF file type " + std::to_string(ftype) + " (" + llama_ftype_name(static_cast<enum llama_ftype>(ftype)) +
                        ") is not one this tool measures; valid types: " + valid_gguf_type_names());
}

Result<GgufType> gguf_type_for_published_name(std::string_view published_name) {
  for (const auto& row : kTable) {
    if (!row.published_name.empty() && equals_ignore_case(published_name, row.published_name)) return row.type;
  }
  return unexpected(ErrorCode::invalid_argument, "unknown published format name '" + std::string(published_name) +
                                                     "'; known: " + published_names());
}

}  // namespace ecocompute::engine
