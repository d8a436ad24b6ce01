// SplitMode: how a model loaded on several GPUs is divided among them.
#pragma once

#include <string_view>

#include "util/result.hpp"

namespace ecocompute::engine {

/// Whole layers per GPU (llama.cpp's layer split: the GPUs take turns, one busy at a time at batch 1),
/// or each weight matrix's rows spread over the GPUs (row split: all busy, partial results exchanged).
enum class SplitMode { layer, row };

/// Returns "layer" or "row".
[[nodiscard]] std::string_view to_string(SplitMode mode) noexcept;
/// Parses "layer" or "row"; any other text is an invalid_argument error naming it.
[[nodiscard]] Result<SplitMode> parse_split_mode(std::string_view text);

}  // namespace ecocompute::engine
