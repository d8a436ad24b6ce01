// Precision: the one table of weight formats — the GGUF types llama.cpp runs and the published
// (transformers + bitsandbytes) names — with their class, bits per weight and published equivalents.
// The engine maps GGUF types to llama.cpp's ftype numbers, the data layer sizes weights with it, and
// reports name precisions in its spelling.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace ecocompute {

/// A GGUF file type (llama.cpp "ftype"), spelled as on the command line and in llama-quantize.
enum class GgufType {
  F32, F16, BF16,
  Q8_0, Q6_K, Q5_K_M, Q5_K_S, Q5_0, Q4_K_M, Q4_K_S, Q4_0, Q4_1, IQ4_NL, IQ4_XS,
  Q3_K_L, Q3_K_M, Q3_K_S, IQ3_M, IQ3_S, IQ3_XXS,
  Q2_K, Q2_K_S, IQ2_M, IQ2_S, IQ2_XS, IQ2_XXS,
};

/// The stack a format name belongs to.
enum class FormatFamily {
  gguf,          ///< a GGUF type, run by llama.cpp
  bitsandbytes,  ///< a name of the published stack (transformers, bitsandbytes): FP16, BF16, NF4, FP4, INT8
};

/// One row of the table.
struct PrecisionInfo {
  std::string_view name;               ///< "Q4_K_M", "NF4": the canonical spelling
  FormatFamily family = FormatFamily::gguf;
  GgufType gguf = GgufType::F32;       ///< the GGUF type (GGUF rows only)
  int llama_ftype = -1;                ///< enum llama_ftype value (LLAMA_FTYPE_MOSTLY_Q4_K_M = 15 …); -1: not GGUF
  std::string_view precision_class;    ///< "16-bit", "8-bit", … "2-bit" ("32-bit" for F32)
  /// Average storage bits per weight of a whole file, block scales and the tensors a type keeps at
  /// higher precision included: llama-quantize's published Llama-3-8B file sizes where it gives one
  /// (Q4_K_M: 4.58 GiB → 4.90; our H200 files measured 4.89), else its stated bpw. Reports carry the
  /// figure measured from each file; this one serves estimates and planning.
  double bits_per_weight = 16.0;
  bool is_baseline = false;            ///< an unquantized float format ΔE is measured against
  bool is_source_format = false;       ///< F32/F16/BF16 GGUF: a file we can quantize from
  bool requires_imatrix = false;       ///< llama_model_quantize refuses it without an importance matrix
  std::string_view published_name;     ///< the published stack's name of the same or nearest format, or ""
  std::string_view published_relation; ///< "=" (same format) or "≈" (nearest GGUF equivalent), or ""
  std::string_view default_engine;     ///< "llama.cpp" or "transformers+bitsandbytes"

  [[nodiscard]] constexpr bool is_gguf() const noexcept { return family == FormatFamily::gguf; }
};

/// The engine name of the published stack, given to published rows and 1.1 reports that name none.
inline constexpr std::string_view published_engine = "transformers+bitsandbytes";

/// Returns every row: the GGUF types in GgufType's order, then the published stack's names.
[[nodiscard]] std::span<const PrecisionInfo> precision_table() noexcept;
/// Returns the GGUF rows only, in GgufType's order.
[[nodiscard]] std::span<const PrecisionInfo> gguf_precisions() noexcept;

/// Returns the row of a GGUF type.
[[nodiscard]] const PrecisionInfo& precision_info(GgufType type) noexcept;
/// Returns the CLI spelling of `type` ("Q4_K_M").
[[nodiscard]] std::string_view to_string(GgufType type) noexcept;

/// Parses a GGUF type name, case-insensitively ("q4_k_m" → Q4_K_M). An unknown name is an
/// invalid_argument Error that lists the valid names; a published name (INT8, NF4, FP16) gets one that
/// names its GGUF equivalent.
[[nodiscard]] Result<GgufType> parse_gguf_type(std::string_view text);
/// Returns the GGUF type equivalent to a published name: "FP16" → F16, "INT8" → Q8_0, "NF4" → IQ4_NL
/// (case-insensitive); Error listing the known published names otherwise.
[[nodiscard]] Result<GgufType> gguf_type_for_published_name(std::string_view published_name);
/// Returns the comma-separated GGUF type names, for messages.
[[nodiscard]] std::string valid_gguf_type_names();

/// Parses any precision, case-insensitively, published names first ("nf4", "fp16", "float16" →
/// FP16; "F16" → the GGUF F16; "q4_k_m" → Q4_K_M). Unknown names are an invalid_argument error
/// listing the known ones.
[[nodiscard]] Result<PrecisionInfo> parse_precision(std::string_view text);
/// True for a name parse_precision knows as an unquantized baseline format (F16, BF16, FP16 …).
[[nodiscard]] bool is_baseline_precision(std::string_view text);

/// Returns the weight size in GB (1e9 bytes) of `params_b` billion parameters at a precision.
[[nodiscard]] double weight_gb(double params_b, const PrecisionInfo& precision) noexcept;

}  // namespace ecocompute
