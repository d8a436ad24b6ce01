// A point on the decision model's axes: what is asked (or measured) — engine and format (the fixed-
// effect group, "key"), architecture, GPU model, ln model size, batch and its kernel regime.
#pragma once

#include <string>

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
  double regime_log_batch = 0;  ///< ln(batch / the regime's first batch): the regime slope's covariate
};

/// The key of an engine and precision: "llama.cpp|Q4_K_M".
std::string model_key(const std::string& engine, const std::string& precision);

/// The point of a place.
ModelPoint point_of(const CellPlace& place);

}  // namespace ecocompute::decide
