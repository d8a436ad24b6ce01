// The batch atlas's rows: the seven model shapes of the H200 campaign, with their exact sizes.
#pragma once

#include <vector>

#include "decide/atlas_answers.hpp"
#include "util/result.hpp"

namespace ecocompute::cli {

/// Qwen2-0.5B … Qwen2.5-14B (0.5–14.8 B) as synthesized by `ecocompute synth`: the sizes the campaign's
/// reports carry, so a measured cell is found at exactly its size. `atlas` and `serve` (GET /v1/atlas)
/// both use them.
[[nodiscard]] Result<std::vector<decide::AtlasSize>> campaign_atlas_sizes();

}  // namespace ecocompute::cli
