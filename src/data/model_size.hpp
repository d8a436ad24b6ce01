// Model sizes: reading a size out of a model name ("Qwen2.5-14B" → 14) and checking one.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>

#include "util/result.hpp"

namespace ecocompute::data {

/// Reads a size from a model name: "Qwen2.5-14B" → 14, "TinyLlama-1.1B-Chat" → 1.1,
/// "Qwen/Qwen2-0.5B" → 0.5, "llama-3-8b-instruct" → 8, "Mixtral-8x7B" → 56. Absent if none is found.
std::optional<double> params_b_from_model_name(std::string_view model_name);

/// The physical range of a model size a question may ask about, in billions of parameters: from one
/// million parameters (our trained fixture has 1.8 M) to ten trillion. Outside it an answer would be
/// arithmetic on a curve, not an estimate.
inline constexpr double kMinParamsB = 0.001;
inline constexpr double kMaxParamsB = 10000.0;

/// Whether two sizes name one model: within 0.5 % of the larger. Sizes are quoted to two or three
/// digits ("1.54 B" for 1.5437 B), so a question about "8.03 B" or "Llama-3-8B" (8 B) meets the
/// 8.03026 B that was measured, and a measurement there is an anchor. Both ΔE and the absolute energy of a
/// measured size use it, so they never disagree about whether a size was measured.
inline bool same_model_size(double a, double b) { return std::abs(a - b) <= 0.005 * std::max(std::abs(a), std::abs(b)); }

/// Checks a model size: finite and within [kMinParamsB, kMaxParamsB]; the error names `what` and the range.
Result<double> check_params_b(double params_b, std::string_view what);

}  // namespace ecocompute::data
