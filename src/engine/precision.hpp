// Precisions: the GGUF weight formats the tool measures, their llama.cpp ftype, class and published names.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace ecocompute::engine {

/// A GGUF file type (llama.cpp "ftype"), spelled as on the command line and in llama-quantize.
enum class GgufType {
  F32,
  F16,
  BF16,
  Q8_0,
  Q6_K,
  Q5_K_M,
  Q5_K_S,
  Q5_0,
  Q4_K_M,
  Q4_K_S,
  Q4_0,
  IQ4_NL,
  IQ4_XS,
  Q3_K_L,
  Q3_K_M,
  Q3_K_S,
  IQ3_M,
  IQ3_S,
  IQ3_XXS,
  Q2_K,
  Q2_K_S,
  IQ2_M,
  IQ2_S,
  IQ2_XS,
  IQ2_XXS,
};

/// One row of the precision table.
struct PrecisionInfo {
  GgufType type;
  std::string_view name;              ///< "Q4_K_M": the CLI spelling
  int llama_ftype;                    ///< enum llama_ftype value (LLAMA_FTYPE_MOSTLY_Q4_K_M = 15 …)
  std::string_view precision_class;   ///< "16-bit", "8-bit", "6-bit", "5-bit", "4-bit", "3-bit", "2-bit" ("32-bit" for F32)
  double nominal_bits_per_weight;     ///< llama-quantize's published size of the main tensor type; for planning only
  bool requires_imatrix;              ///< llama_model_quantize refuses it without an importance matrix (llama-quant.cpp)
  bool is_source_format;              ///< F32/F16/BF16: a file we can quantize from
  std::string_view published_name;    ///< the published system's name of the same or nearest format ("FP16", "INT8", "NF4"), or ""
  std::string_view published_relation;  ///< "=" (same format) or "≈" (nearest GGUF equivalent), or ""
};

/// Returns every row of the table, in the enum's order (highest precision first).
std::span<const PrecisionInfo> precision_table() noexcept;

/// Returns the row of `type`.
const PrecisionInfo& precision_info(GgufType type) noexcept;

/// Returns the CLI spelling of `type` ("Q4_K_M").
std::string_view to_string(GgufType type) noexcept;

/// Parses a GGUF type name, case-insensitively ("q4_k_m" → Q4_K_M). An unknown name gets an
/// invalid_argument Error that lists the valid names; a published name (INT8, NF4, FP16) gets one that
/// names its GGUF equivalent.
Result<GgufType> parse_gguf_type(std::string_view text);

/// Returns the GGUF type whose llama_ftype value is `llama_ftype`; Error (invalid_input) when the
/// table has none (an ftype llama.cpp knows but this tool does not measure, or an unknown number).
Result<GgufType> gguf_type_from_llama_ftype(int llama_ftype);

/// Returns the GGUF type equivalent to a published name: "FP16" → F16, "INT8" → Q8_0, "NF4" → IQ4_NL
/// (case-insensitive); Error listing the known published names otherwise.
Result<GgufType> gguf_type_for_published_name(std::string_view published_name);

/// Returns the comma-separated list of valid type names, for messages.
std::string valid_gguf_type_names();

}  // namespace ecocompute::engine
