// The GGUF metadata key that says where a model's weights came from. modelgen writes it; the engine
// reads it, because synthetic weights make the quality probe meaningless.
#pragma once

#include <string_view>

namespace ecocompute::engine {

/// GGUF key that says where a model's weights came from: "synthetic" (random, `ecocompute synth`)
/// or "trained-fixture" (the committed test model). Absent in models from elsewhere.
inline constexpr std::string_view weights_metadata_key = "ecocompute.weights";
inline constexpr std::string_view weights_synthetic = "synthetic";
inline constexpr std::string_view weights_trained_fixture = "trained-fixture";

}  // namespace ecocompute::engine
