// The batch / context model (see batch_model.hpp for the formulas and why).
#include "data/batch_model.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace ecocompute::data {
namespace {
constexpr double kBatchHalf = 8;          // batch at which a memory-bound saving has shrunk to 1/(1 + 7/8)
constexpr double kContextShrink = 0.12;   // per doubling of the context beyond the baseline
constexpr double kModelSigmaShare = 0.5;  // σ of the model as a share of the effect it applies
constexpr double kFixedShare = 0.35;      // fixed per-token overhead a batch amortizes
constexpr double kFixedShareMax = 1.0;   // energy ∝ 1/batch: what llama.cpp on the H200 nearly reaches
}  // namespace

double savings_factor(int batch, int context) noexcept {
  const double b = std::max(batch, 1);
  const double from_batch = 1.0 / (1.0 + (b - 1.0) / kBatchHalf);
  const double doublings = std::max(0.0, std::log2(static_cast<double>(std::max(context, kBaselineContext)) / kBaselineContext));
  return from_batch / (1.0 + kContextShrink * doublings);
}

bool batch_or_context_modelled(int batch, int context) noexcept { return batch > 1 || context > kBaselineContext; }

ModelledDelta modelled_delta(double baseline_delta_pct, int batch, int context) noexcept {
  ModelledDelta m;
  m.factor = savings_factor(batch, context);
  m.delta_pct = baseline_delta_pct < 0 ? baseline_delta_pct * m.factor : baseline_delta_pct;
  m.sigma_pct = kModelSigmaShare * std::abs(baseline_delta_pct) * (1.0 - m.factor);
  return m;
}

Amortization batch_amortization(int batch) noexcept {
  const double b = std::max(batch, 1);
  auto at = [&](double f) { return (1.0 - f) + f / b; };
  return Amortization{at(kFixedShare), at(kFixedShareMax), at(0.0)};
}

std::string batch_amortization_model() {
  return fmt::format("batch amortization (fixed share {:g} of per-token energy, range 0 to {:g})", kFixedShare, kFixedShareMax);
}

}  // namespace ecocompute::data
