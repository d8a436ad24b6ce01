// A point on the decision model's axes: what is asked (or measured) — engine and format (the fixed-
// effect group, "key"), architecture, GPU model, ln model size, batch and its kernel regime, and the
// context beyond the baseline with its batch group.
#pragma once

#include <string>
#include <string_view>

#include "decide/model_cells.hpp"

namespace ecocompute::decide {

struct ModelPoint {
  std::string key;        ///< engine + "|" + precision
  std::string engine;
  std::string precision;
  std::string arch;
  std::string gpu;
  double log_size = 0;    ///< ln(params_b)
  int batch = 1;
  int regime = 0;         ///< batch_regime(engine, precision, arch, batch)
  double regime_coordinate = 0;  ///< where the batch lies in its regime (batch_regime.hpp): the regime slope's covariate
  int context = 0;          ///< context beyond the baseline (CellPlace::context); 0 at or below it
  double context_covariate = 0;  ///< context_covariate(precision, context): the context slope's covariate
  int context_group = 0;    ///< context_group(batch)
};

/// The context as the model places it: the context beyond the baseline, 0 at or below it.
int context_beyond_baseline(int context) noexcept;

/// The covariate of the context's effect, 0 at and below the baseline context c₀ and continuous there:
/// for F16's own energy ln(c / c₀) (the bytes read per token grow with c without bound), for a format's
/// ratio to F16 1 − c₀/c, bounded (the KV cache is read at F16 by every format, so as it comes to
/// dominate the ratio tends to a limit, not on without end; the fitted slope is the shift at an
/// unbounded context, half of it at 2c₀).
double context_covariate(std::string_view precision, int context) noexcept;

/// The batch groups in which the context's effect is estimated apart: batch 1, 2–8, above 8 — the
/// llama.cpp CUDA kernel regimes of quantized weights (MMVQ up to 8 columns), used for both outcomes so
/// that F16 and a format meet at the same batches. The measured shift of F16 at context 4096 grows
/// with the batch (8.03 B on the H200, against the short-context atlas on another card: about +22 % at
/// batch 1, +36 % at 8, +92 % at 32), so one slope cannot serve every batch.
int context_group(int batch) noexcept;

/// The key of an engine and precision: "llama.cpp|Q4_K_M".
std::string model_key(const std::string& engine, const std::string& precision);

/// The point of a place.
ModelPoint point_of(const CellPlace& place);

}  // namespace ecocompute::decide
