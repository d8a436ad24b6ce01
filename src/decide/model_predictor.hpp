// The decision model behind the calibration interface: each fold refits the model (its variance
// components by REML, warm-started from the fit to all the evidence) on the fold's training rows.
#pragma once

#include "decide/calibration.hpp"
#include "decide/outcome_model.hpp"

namespace ecocompute::decide {

/// `whole`: the model fitted to every row (the folds' starting point).
PredictorFactory model_factory(std::shared_ptr<const OutcomeModel> whole);

}  // namespace ecocompute::decide
