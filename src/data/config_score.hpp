// Scoring one configuration (precision, batch, context) of the optimizer: energy from the estimator
// with its basis, latency and throughput from a roofline of the GPU datasheet, memory from weights and
// KV cache. A score depends on the configuration and the evidence only, never on the rest of the grid.
#pragma once

#include <string>

#include "data/evidence.hpp"
#include "data/gpu_spec.hpp"
#include "data/optimizer.hpp"
#include "util/precision.hpp"
#include "util/result.hpp"

namespace ecocompute::data {

/// What every configuration of one question shares.
struct ConfigQuestion {
  double params_b = 0;
  GpuSpec gpu;             ///< the named GPU, or the architecture's representative one
  bool gpu_named = false;  ///< a GPU was named (else only its architecture counts)
  bool allow_borrow = false;
};

/// KV cache bytes per token of context per billion parameters (grouped-query models: Llama-3-8B has
/// 32 layers × 8 KV heads × 128 × 2 (K, V) × 2 bytes = 128 KiB per token, 16 KiB per billion).
inline constexpr double kKvBytesPerTokenPerBillion = 16.0 * 1024;

/// Scores one configuration. Errors are the estimator's (no curve and no borrow for the precision).
Result<Candidate> score_config(const ConfigQuestion& question, const PrecisionInfo& precision, const std::string& engine,
                               int batch, int context, const Evidence& evidence);

}  // namespace ecocompute::data
