// The batch / context model: what the decision layer assumes where no session measured a batch size
// or context. It is the published service's model, kept so that its answers keep their meaning, and
// every figure it touches is labelled modelled and given a wider band.
//
//   ΔE(batch, ctx) = ΔE(1, ≤2048) × savings_factor  (savings only shrink toward zero; costs stay)
//   savings_factor = 1/(1 + (batch−1)/8) · 1/(1 + 0.12·max(0, log2(ctx/2048)))
//   σ_model        = 0.5 · |ΔE(1)| · (1 − savings_factor)          (added to the band in quadrature)
//   E(batch)/E(1)  = (1 − f) + f/batch, f = 0.35 (fixed per-token overhead amortized by the batch);
//                    its band spans f ∈ [0, 1]: from "batching saves nothing" to perfect amortization
//                    (energy ∝ 1/batch). It was [0, 0.7] until our sweeps on the H200 with llama.cpp
//                    measured 0.25 at batch 4 and 0.05–0.09 at batch 16–64, far below 0.3 + 0.7/batch.
//                    Where a sweep of the architecture and engine exists, batch_scaling.hpp uses it instead.
#pragma once

#include <string>

namespace ecocompute::data {

/// The context the published measurements count as their baseline (tokens); contexts up to it use the
/// measured figure as is.
inline constexpr int kBaselineContext = 2048;

/// Returns the factor in (0, 1] by which a saving shrinks at `batch` and `context`; 1 at the baseline.
double savings_factor(int batch, int context) noexcept;

/// Returns true when (batch, context) is outside the measured baseline (batch 1, context ≤ 2048).
bool batch_or_context_modelled(int batch, int context) noexcept;

/// ΔE at (batch, context) from ΔE at the baseline, by the model above.
struct ModelledDelta {
  double delta_pct = 0;
  double sigma_pct = 0;  ///< the model's own standard uncertainty, percentage points
  double factor = 1;
};
ModelledDelta modelled_delta(double baseline_delta_pct, int batch, int context) noexcept;

/// Energy per token at `batch` relative to batch 1 (the same for every precision), with its range.
struct Amortization {
  double value = 1, low = 1, high = 1;
};
Amortization batch_amortization(int batch) noexcept;

/// The amortization model in words, with its constants, for a figure's `model` field.
std::string batch_amortization_model();

}  // namespace ecocompute::data
