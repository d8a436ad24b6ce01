// The precision table and its lookups.
#include "util/precision.hpp"
#include "util/quoted_input.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace ecocompute {
namespace {

using F = FormatFamily;
using G = GgufType;
constexpr std::string_view kLlama = "llama.cpp";
constexpr std::string_view kPublished = published_engine;

constexpr PrecisionInfo gguf(G type, std::string_view name, int ftype, std::string_view klass, double bits,
                             bool imatrix = false, std::string_view published = "", std::string_view relation = "") {
  const bool source = type == G::F32 || type == G::F16 || type == G::BF16;
  return PrecisionInfo{name,  F::gguf, type,      ftype,    klass,     bits,  source,
                       source, imatrix, published, relation, kLlama};
}
constexpr PrecisionInfo published(std::string_view name, std::string_view klass, double bits, bool baseline) {
  return PrecisionInfo{name, F::bitsandbytes, G::F32, -1, klass, bits, baseline, false, false, "", "", kPublished};
}

// GGUF rows follow GgufType's order. Bits per weight: see PrecisionInfo::bits_per_weight; the
// published formats store NF4/FP4 as 4 bits plus one FP32 absmax per 64 weights (4.5) and LLM.int8()
// as 8 bits plus a per-row FP16 scale (≈ 8). Requires-imatrix follows llama-quant.cpp's
// tensor_requires_imatrix(): IQ2_XXS/XS/S and IQ3_XXS as target types, and Q2_K_S.
constexpr std::array kTable{
    gguf(G::F32, "F32", 0, "32-bit", 32.0),
    gguf(G::F16, "F16", 1, "16-bit", 16.0, false, "FP16", "="),
    gguf(G::BF16, "BF16", 32, "16-bit", 16.0),
    gguf(G::Q8_0, "Q8_0", 7, "8-bit", 8.52, false, "INT8", "≈"),
    gguf(G::Q6_K, "Q6_K", 18, "6-bit", 6.57),
    gguf(G::Q5_K_M, "Q5_K_M", 17, "5-bit", 5.70),
    gguf(G::Q5_K_S, "Q5_K_S", 16, "5-bit", 5.57),
    gguf(G::Q5_0, "Q5_0", 8, "5-bit", 5.57),
    gguf(G::Q4_K_M, "Q4_K_M", 15, "4-bit", 4.90),
    gguf(G::Q4_K_S, "Q4_K_S", 14, "4-bit", 4.67),
    gguf(G::Q4_0, "Q4_0", 2, "4-bit", 4.64),
    gguf(G::Q4_1, "Q4_1", 3, "4-bit", 5.11),
    gguf(G::IQ4_NL, "IQ4_NL", 25, "4-bit", 4.50, false, "NF4", "≈"),
    gguf(G::IQ4_XS, "IQ4_XS", 30, "4-bit", 4.25),
    gguf(G::Q3_K_L, "Q3_K_L", 13, "3-bit", 4.31),
    gguf(G::Q3_K_M, "Q3_K_M", 12, "3-bit", 4.00),
    gguf(G::Q3_K_S, "Q3_K_S", 11, "3-bit", 3.65),
    gguf(G::IQ3_M, "IQ3_M", 27, "3-bit", 3.66),
    gguf(G::IQ3_S, "IQ3_S", 26, "3-bit", 3.44),
    gguf(G::IQ3_XXS, "IQ3_XXS", 23, "3-bit", 3.06, true),
    gguf(G::Q2_K, "Q2_K", 10, "2-bit", 3.17),
    gguf(G::Q2_K_S, "Q2_K_S", 21, "2-bit", 3.17, true),
    gguf(G::IQ2_M, "IQ2_M", 29, "2-bit", 2.70, true),
    gguf(G::IQ2_S, "IQ2_S", 28, "2-bit", 2.50, true),
    gguf(G::IQ2_XS, "IQ2_XS", 20, "2-bit", 2.31, true),
    gguf(G::IQ2_XXS, "IQ2_XXS", 19, "2-bit", 2.06, true),
    published("FP16", "16-bit", 16.0, true),
    published("BF16", "16-bit", 16.0, true),
    published("NF4", "4-bit", 4.5, false),
    published("FP4", "4-bit", 4.5, false),
    published("INT8", "8-bit", 8.0, false),
};
constexpr std::size_t kGgufRows = static_cast<std::size_t>(G::IQ2_XXS) + 1;

constexpr bool gguf_rows_in_enum_order() {
  for (std::size_t i = 0; i < kGgufRows; ++i) {
    if (!kTable[i].is_gguf() || static_cast<std::size_t>(kTable[i].gguf) != i) return false;
  }
  for (std::size_t i = kGgufRows; i < kTable.size(); ++i) {
    if (kTable[i].is_gguf()) return false;
  }
  return true;
}
static_assert(gguf_rows_in_enum_order(), "GGUF rows must come first, in GgufType's order");

std::string upper(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::toupper(c); });
  return out;
}

// Letter by letter, without upper-casing copies: names are compared against the whole table for every
// figure an answer shows.
bool equals_ignore_case(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](unsigned char x, unsigned char y) { return std::toupper(x) == std::toupper(y); });
}

std::string published_names() {
  std::string names;
  for (const PrecisionInfo& row : gguf_precisions()) {
    if (row.published_name.empty()) continue;
    if (!names.empty()) names += ", ";
    names += std::string(row.published_name) + " " + std::string(row.published_relation) + " " + std::string(row.name);
  }
  return names;
}

}  // namespace

std::span<const PrecisionInfo> precision_table() noexcept { return kTable; }

std::span<const PrecisionInfo> gguf_precisions() noexcept { return std::span(kTable).first(kGgufRows); }

const PrecisionInfo& precision_info(GgufType type) noexcept { return kTable[static_cast<std::size_t>(type)]; }

std::string_view to_string(GgufType type) noexcept { return precision_info(type).name; }

std::string valid_gguf_type_names() {
  std::string names;
  for (const PrecisionInfo& row : gguf_precisions()) {
    if (!names.empty()) names += ", ";
    names += row.name;
  }
  return names;
}

Result<GgufType> parse_gguf_type(std::string_view text) {
  for (const PrecisionInfo& row : gguf_precisions()) {
    if (equals_ignore_case(text, row.name)) return row.gguf;
  }
  for (const PrecisionInfo& row : gguf_precisions()) {
    if (!row.published_name.empty() && equals_ignore_case(text, row.published_name)) {
      return unexpected(ErrorCode::invalid_argument,
                        quoted_input(text) + " is a published (transformers/bitsandbytes) format name, not a GGUF "
                        "type; its GGUF equivalent is " + std::string(row.name) + " (" + std::string(row.published_name) +
                            " " + std::string(row.published_relation) + " " + std::string(row.name) + ")");
    }
  }
  return unexpected(ErrorCode::invalid_argument,
                    "unknown GGUF type " + quoted_input(text) + "; valid types: " + valid_gguf_type_names());
}

Result<GgufType> gguf_type_for_published_name(std::string_view published_name) {
  for (const PrecisionInfo& row : gguf_precisions()) {
    if (!row.published_name.empty() && equals_ignore_case(published_name, row.published_name)) return row.gguf;
  }
  return unexpected(ErrorCode::invalid_argument, "unknown published format name " + quoted_input(published_name) +
                                                     "; known: " + published_names());
}

Result<PrecisionInfo> parse_precision(std::string_view text) {
  std::string key = upper(text);
  if (key == "FLOAT16" || key == "HALF") key = "FP16";
  if (key == "BFLOAT16") key = "BF16";
  if (key == "LLM.INT8" || key == "LLM.INT8()" || key == "8BIT") key = "INT8";
  if (key == "4BIT") key = "NF4";
  // The published names first: "BF16" is the transformers format unless asked for as a GGUF type.
  for (std::size_t i = kGgufRows; i < kTable.size(); ++i) {
    if (kTable[i].name == key) return kTable[i];
  }
  for (const PrecisionInfo& row : gguf_precisions()) {
    if (row.name == key) return row;
  }
  std::string known;
  for (std::size_t i = kGgufRows; i < kTable.size(); ++i) known += (known.empty() ? "" : ", ") + std::string(kTable[i].name);
  for (const PrecisionInfo& row : gguf_precisions()) known += ", " + std::string(row.name);
  return unexpected(ErrorCode::invalid_argument, "unknown precision " + quoted_input(text) + " (known: " + known + ")");
}

bool is_baseline_precision(std::string_view text) {
  const auto p = parse_precision(text);
  return p && p->is_baseline;
}

double weight_gb(double params_b, const PrecisionInfo& precision) noexcept {
  return params_b * precision.bits_per_weight / 8.0;  // 1e9 params × bits / 8 bits per byte / 1e9
}

}  // namespace ecocompute
