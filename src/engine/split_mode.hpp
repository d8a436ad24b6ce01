// SplitMode: how a model loaded on several GPUs is divided among them.
#pragma once

#include <string_view>

#include "util/result.hpp"

namespace ecocompute::engine {

/// llama.cpp's three ways: whole layers per GPU (layer: the GPUs take turns, one busy at a time at
/// batch 1); each weight matrix's rows spread over the GPUs (row: a backend's split buffers, which not
/// every backend has); or weights and KV cache divided for tensor parallelism (tensor: all GPUs busy,
/// partial results exchanged; experimental in llama.cpp, and it needs flash attention).
enum class SplitMode { layer, row, tensor };

/// Returns "layer", "row" or "tensor".
[[nodiscard]] std::string_view to_string(SplitMode mode) noexcept;
/// Parses "layer", "row" or "tensor"; any other text is an invalid_argument error naming it.
[[nodiscard]] Result<SplitMode> parse_split_mode(std::string_view text);

}  // namespace ecocompute::engine
