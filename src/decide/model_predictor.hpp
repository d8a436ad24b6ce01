// The decision model behind the calibration interface: each fold refits the model (its variance
// components by REML, warm-started from the fit to all the evidence) on the fold's training rows and
// answers each held-out cell with predict(), as estimate would (its GPU, engine, format, size and
// batch; a borrow allowed).
#pragma once

#include <memory>

#include "decide/calibration.hpp"
#include "decide/decision_model.hpp"

namespace ecocompute::decide {

/// `whole`: the model fitted to every row (the folds' starting point).
PredictorFactory model_factory(std::shared_ptr<const DecisionModel> whole);

}  // namespace ecocompute::decide
