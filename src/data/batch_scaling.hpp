// How FP16 energy per token falls with the batch, from our own batch sweeps where they exist. The
// published batch model (batch_model.hpp) assumes a fixed 35 % share of per-token energy is amortized,
// so batch 64 keeps 65 % of batch 1's energy; on the H200 with llama.cpp we measured 5.5 % at 1.24 B
// and 8.7 % at 8.03 B batch 16, because decode there is bound by reading the weights once per step for
// every sequence. So where a session measured batches of this architecture and engine, the ratio comes
// from those measurements and says how (measured, interpolated, extrapolated, borrowed from other sizes);
// only where none did is it the published model.
#pragma once

#include <string>
#include <vector>

#include "data/basis.hpp"
#include "data/data_row.hpp"

namespace ecocompute::data {

/// FP16 energy per token at a batch relative to batch 1, with the range it may lie in.
struct BatchScaling {
  double value = 1, low = 1, high = 1;
  /// measured (both batches measured at this size), interpolated (between two measured batches at
  /// this size), extrapolated (beyond the largest measured batch at this size), borrowed (the ratios
  /// of other sizes' sweeps), modelled (no sweep for this architecture and engine: the published model)
  Basis basis = Basis::modelled;
  std::string label;  ///< "batch 32 at 8.03 B: between measured batches 16 (× 0.088) and 64 (× 0.032)"
  std::string model;  ///< the model, when modelled
};

/// The scaling at `batch` for a `params_b` model on `arch` with `engine`, from the measured FP16 same-run
/// baselines in `rows` (every session; each size's batch-1 and batch-b energies are the means of its rows
/// there). Between two measured batches it is linear in log(batch), log(energy) and its range is the two
/// measured ratios; beyond the largest it continues the last measured slope (at most 1/batch, at least
/// flat) and its range runs from perfect amortization (energy ∝ 1/batch) to no further saving.
/// Batch 1 gives 1, measured.
BatchScaling batch_scaling(const std::vector<DataRow>& rows, const std::string& arch, const std::string& engine, double params_b,
                           int batch);

/// The basis of a batch-1 energy once `scaling` has carried it to `batch`: no better than the scaling,
/// and never measured (a measured ratio times a batch-1 baseline is a product, interpolated at best),
/// with the scaling's label as the reason and its model, if any.
FigureBasis scaled_basis(const FigureBasis& basis, const BatchScaling& scaling, int batch);

}  // namespace ecocompute::data
