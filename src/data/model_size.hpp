// Model sizes: reading a size out of a model name ("Qwen2.5-14B" → 14) and checking one.
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <string_view>

#include "util/result.hpp"

namespace ecocompute::data {

/// A model's size in billions of parameters: all of them (what its weights take in memory) and, for a
/// mixture of experts, those one token passes through (what sets the compute per token).
struct ModelSize {
  double total_b = 0;
  std::optional<double> active_b;  ///< absent for a dense model (all parameters are active)
};

/// Reads a size from a model name, in time linear in its length: "Qwen2.5-14B" → 14, "TinyLlama-1.1B-Chat"
/// → 1.1, "Qwen/Qwen2-0.5B" → 0.5, "SmolLM-360M" → 0.36; mixtures of experts with both sizes:
/// "Mixtral-8x7B" → 46.7 total, 12.9 active (published), "Qwen3-30B-A3B" → 30 and 3, another "E×S B" by
/// Mixtral's split (19 % shared, two of E experts routed). Absent if no size is found.
std::optional<ModelSize> model_size_from_name(std::string_view model_name);

/// The total size read from a model name (model_size_from_name), the one memory depends on.
std::optional<double> params_b_from_model_name(std::string_view model_name);

/// The physical range of a model size a question may ask about, in billions of parameters: from one
/// million parameters (our trained fixture has 1.8 M) to ten trillion. Outside it an answer would be
/// arithmetic on a curve, not an estimate.
inline constexpr double kMinParamsB = 0.001;
inline constexpr double kMaxParamsB = 10000.0;

/// Checks a model size: finite and within [kMinParamsB, kMaxParamsB]; the error names `what` and the range.
Result<double> check_params_b(double params_b, std::string_view what);

/// The batch sizes and context lengths a question may ask about. Past them no engine runs one decode
/// step (llama.cpp's default ubatch is 512, serving engines schedule a few thousand sequences), nor does
/// any model's context window reach (1 Mi tokens); an answer there would be arithmetic, not an estimate.
inline constexpr int kMaxBatch = 4096;
inline constexpr int kMaxContext = 1 << 20;

/// Checks a batch size: within [1, kMaxBatch]; the error names `what` and the range.
Result<int> check_batch_size(long long batch, std::string_view what);
/// Checks a context length: within [1, kMaxContext]; the error names `what` and the range.
Result<int> check_context_length(long long context, std::string_view what);

}  // namespace ecocompute::data
