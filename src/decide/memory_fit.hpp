// Whether a configuration fits on the GPU: the weights (N × bits per weight / 8) and the KV cache
// (bytes per token of context × context × batch) against the GPU's memory. Runtime buffers (compute
// scratch, the CUDA context) come on top and are not modelled, so "fits" is necessary, not sufficient.
#pragma once

#include <string>

#include "data/basis.hpp"
#include "decide/basis_detail.hpp"
#include "util/json_sink.hpp"
#include "util/json.hpp"
#include "util/precision.hpp"

namespace ecocompute::decide {

/// KV cache bytes per token of context per billion parameters: grouped-query models of the Llama-3
/// shape keep 128 KiB per token at 8 B (32 layers × 8 KV heads × 128 × 2 (K, V) × 2 bytes), 16 KiB
/// per billion.
inline constexpr double kKvBytesPerTokenPerBillion = 16.0 * 1024;

/// KV cache in GB (1e9 bytes) of `batch` sequences of `context` tokens of a `params_b` model.
double kv_cache_gb(double params_b, int context, int batch) noexcept;

struct MemoryFit {
  std::string gpu;            ///< the GPU it is judged against
  double gpu_memory_gb = 0;
  double weights_gb = 0;      ///< of the asked precision
  double kv_cache_gb = 0;
  double total_gb = 0;        ///< weights + KV cache
  double fp16_total_gb = 0;   ///< the same at F16: the baseline ΔE is measured against
  bool fits = true;
  bool fp16_fits = true;
  data::FigureBasis basis;    ///< modelled, with the model stated
};

/// A model's parameters in billions: every one (the weights in memory) and those one token passes
/// through (a mixture of experts' active ones; every one for a dense model), which set the KV cache:
/// its attention is that of a model of the active size, not of the total.
struct ModelParams {
  double total_b = 0;
  double active_b = 0;
};

/// With BasisDetail::kind_only the basis is its kind alone (modelled), without the stated model.
MemoryFit memory_fit(const std::string& gpu, double gpu_memory_gb, const ModelParams& params, const PrecisionInfo& precision,
                     int batch, int context, BasisDetail detail = BasisDetail::full);

/// The largest batch whose weights and KV cache fit at `context` (0 when the weights alone do not).
int largest_fitting_batch(const MemoryFit& m, int batch);

/// "F16 needs 142.3 GB (weights 140.0 + KV cache 2.3) and the H200 has 141 GB: it does not fit on one
/// GPU, so ΔE is against an F16 that cannot run here" — empty when both fit.
std::string memory_note(const MemoryFit& m, const std::string& precision);

void write_json(JsonSink& sink, const MemoryFit& m);
void to_json(Json& j, const MemoryFit& m);

}  // namespace ecocompute::decide
