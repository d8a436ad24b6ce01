// Paths of the repository's data that tests read.
#pragma once

#include <filesystem>

namespace ecocompute::testing {

/// The trained fixture model (data/fixture/): real weights, small enough for every CPU test.
inline const std::filesystem::path kFixtureModel =
    std::filesystem::path(ECOCOMPUTE_SOURCE_DIR) / "data" / "fixture" / "fixture-kjv-f16.gguf";

/// The published reference measurements (data/published/).
inline const std::filesystem::path kPublishedData = std::filesystem::path(ECOCOMPUTE_SOURCE_DIR) / "data" / "published";

}  // namespace ecocompute::testing
