// The estimator of src/data as a calibration predictor: the answers before the decision model, so
// that the calibration table can be measured the same way before and after it.
#pragma once

#include "decide/calibration.hpp"

namespace ecocompute::decide {

/// Refits the curves and spreads of each fold's training rows and asks data::estimate about each
/// held-out cell (its GPU, engine, format, size and batch; allow_borrow on).
PredictorFactory legacy_estimator_factory();

}  // namespace ecocompute::decide
