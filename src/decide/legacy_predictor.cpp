// data::estimate behind the calibration interface.
#include "decide/legacy_predictor.hpp"

#include <memory>

#include "data/estimator.hpp"
#include "data/evidence.hpp"

namespace ecocompute::decide {

PredictorFactory legacy_estimator_factory() {
  return [](const std::vector<data::DataRow>& training, const std::vector<data::Session>& sessions) -> Result<CellPredictor> {
    auto evidence = std::make_shared<data::Evidence>();
    evidence->rows = training;
    evidence->sessions = sessions;
    auto curves = data::fit_curve_set(evidence->rows, evidence->sessions, data::CurveSetOptions{});
    if (!curves) return curves.error();
    evidence->curves = std::move(*curves);
    if (auto spreads = data::attach_session_spreads(*evidence); !spreads) return spreads.error();
    return CellPredictor([evidence](const Cell& cell) -> std::optional<HeldOutAnswer> {
      data::EstimateRequest request;
      request.params_b = cell.place.params_b;
      request.gpu = cell.place.gpu;
      request.precision = cell.place.precision;
      request.engine = cell.place.engine;
      request.batch = cell.place.batch;
      request.allow_borrow = true;
      auto answer = data::estimate(request, *evidence);
      if (!answer || !answer->delta_pct || !answer->ci_low_pct) return std::nullopt;
      return HeldOutAnswer{*answer->delta_pct, *answer->ci_low_pct, *answer->ci_high_pct, answer->basis};
    });
  };
}

}  // namespace ecocompute::decide
