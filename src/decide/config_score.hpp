// Scoring one configuration (precision, batch, context) of the optimizer: its energy per token and
// ΔE from the decision model's prediction (the same as estimate gives for that question), latency and
// throughput from a roofline of the GPU datasheet, memory from weights and KV cache. A score depends
// on the configuration and the evidence only, never on the rest of the grid.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "data/gpu_spec.hpp"
#include "decide/evidence.hpp"
#include "decide/optimizer.hpp"
#include "util/precision.hpp"
#include "util/result.hpp"

namespace ecocompute::decide {

/// What every configuration of one question shares.
struct ConfigQuestion {
  double params_b = 0;
  std::optional<double> active_params_b;  ///< a mixture of experts' active parameters (compute); params_b is every one (memory)
  data::GpuSpec gpu;       ///< the named GPU, or the architecture's representative one (roofline, memory)
  bool gpu_named = false;  ///< a GPU was named (else the model answers for the architecture's measured GPU)
  bool allow_borrow = false;
  std::string model;
};

/// Scores one configuration. `fp16_batch_one_mj`: F16's energy per token at batch 1 and this context
/// on the same GPU, the denominator of relative_energy. `quality`: the format's quality cost for this
/// question and engine, which depends on neither batch nor context: answered here when empty and kept
/// there for the format's other configurations. `kept_f16`: F16's figures of the question's other
/// configurations (predict(), of the same `detail`). `detail`: the bases in full, or their kinds alone
/// (a grid's ranking; the figures are the same). Errors are predict()'s.
Result<Candidate> score_config(const ConfigQuestion& question, const PrecisionInfo& precision, const std::string& engine, int batch,
                               int context, std::optional<double> fp16_batch_one_mj, const Evidence& evidence,
                               std::shared_ptr<const data::FormatQualityCost>& quality, KeptF16* kept_f16 = nullptr,
                               BasisDetail detail = BasisDetail::full);

}  // namespace ecocompute::decide
