// The sweep plan the integration tests run: three jobs of the trained fixture (batch 1, 2, 3), each a
// short CPU run on one llama thread (small windows, two trials, no quality probe).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace ecocompute::testing {

inline nlohmann::json fixture_sweep_plan() {
  return {{"name", "fixture"},
          {"models", {std::string(ECOCOMPUTE_SOURCE_DIR) + "/data/fixture/fixture-kjv-f16.gguf"}},
          {"batches", {{1}, {2}, {3}}},
          {"precisions", {"Q8_0"}},
          {"trials", 2},
          {"warmups", 1},
          {"tokens", 16},
          {"threads", 1},
          {"window", {{"min_s", 1.0}, {"min_prefill_s", 0.2}, {"idle_s", 0.2}}},
          {"quality", false}};
}

}  // namespace ecocompute::testing
