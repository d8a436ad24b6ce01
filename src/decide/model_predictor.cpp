// The decision model as a calibration predictor (see model_predictor.hpp).
#include "decide/model_predictor.hpp"

#include "data/gpu_spec.hpp"
#include "decide/prediction.hpp"
#include "util/precision.hpp"

namespace ecocompute::decide {

PredictorFactory model_factory(std::shared_ptr<const DecisionModel> whole) {
  return [whole](const std::vector<data::DataRow>& training, const std::vector<data::Session>& sessions) -> Result<CellPredictor> {
    auto evidence = std::make_shared<Evidence>();
    evidence->rows = training;
    evidence->sessions = sessions;
    evidence->model = std::make_shared<const DecisionModel>(DecisionModel::fit(training, whole.get(), false));
    evidence->judge_nearest_size_class = true;  // each fold's factors are read out of fold from these answers
    return CellPredictor([evidence](const Cell& cell) -> std::optional<HeldOutAnswer> {
      Query q;
      q.params_b = cell.place.params_b;
      q.arch = cell.place.arch;
      if (auto gpu = data::find_gpu(cell.place.gpu); gpu && gpu->arch == cell.place.arch) q.gpu = *gpu;
      q.engine = cell.place.engine;
      auto precision = parse_precision(cell.place.precision);
      if (!precision) return std::nullopt;
      q.precision = *precision;
      q.batch = cell.place.batch;
      if (cell.place.context > 0) q.context = cell.place.context;
      q.allow_borrow = true;
      auto p = predict(*evidence, q);
      if (!p || !p->delta) return std::nullopt;
      return HeldOutAnswer{p->delta->value, p->delta->low, p->delta->high, p->delta->basis.basis, p->delta->extent, p->delta->size_place};
    });
  };
}

}  // namespace ecocompute::decide
