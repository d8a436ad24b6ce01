// Precision names (the published classes FP16/NF4/INT8 and GGUF types), weight sizes, and reading a
// model size out of a model name ("Qwen2.5-14B" → 14).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "util/result.hpp"

namespace ecocompute::data {

/// A known precision: its canonical spelling, bits per weight and the engine it implies.
struct PrecisionInfo {
  std::string name;              ///< canonical: "FP16", "NF4", "INT8", "Q4_K_M", "Q8_0", …
  double bits_per_weight = 16;   ///< average storage bits per weight, block scales included
  bool is_baseline = false;      ///< FP16 / BF16 / F16: the reference ΔE is measured against
  bool is_gguf = false;          ///< a GGUF type (llama.cpp)
  std::string default_engine;    ///< "transformers+bitsandbytes" or "llama.cpp"
};

/// Parses a precision, case-insensitively ("nf4", "q4_k_m", "F16" → FP16 for bitsandbytes-style
/// names, "F16" stays GGUF F16). Unknown names are an invalid_argument error listing the known ones.
Result<PrecisionInfo> parse_precision(std::string_view text);

/// Returns the weight size in GB (1e9 bytes) of `params_b` billion parameters at a precision.
double weight_gb(double params_b, const PrecisionInfo& precision) noexcept;

/// Reads a size from a model name: "Qwen2.5-14B" → 14, "TinyLlama-1.1B-Chat" → 1.1,
/// "Qwen/Qwen2-0.5B" → 0.5, "llama-3-8b-instruct" → 8, "Mixtral-8x7B" → 56. Absent if none is found.
std::optional<double> params_b_from_model_name(std::string_view model_name);

/// Checks a model size: finite and > 0; the error names `what`.
Result<double> check_params_b(double params_b, std::string_view what);

}  // namespace ecocompute::data
