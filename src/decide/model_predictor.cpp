// The decision model as a calibration predictor (see model_predictor.hpp).
#include "decide/model_predictor.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "decide/place_basis.hpp"
#include "decide/variance_uncertainty.hpp"
#include "util/statistics.hpp"

namespace ecocompute::decide {

PredictorFactory model_factory(std::shared_ptr<const OutcomeModel> whole) {
  return [whole](const std::vector<data::DataRow>& training, const std::vector<data::Session>&) -> Result<CellPredictor> {
    auto model = std::make_shared<OutcomeModel>(OutcomeModel::fit(ratio_cells(training), whole.get()));
    return CellPredictor([model](const Cell& cell) -> std::optional<HeldOutAnswer> {
      const ModelPoint p = point_of(cell.place);
      const FamilyFit* family = model->family_of(p.engine);
      if (family == nullptr) return std::nullopt;
      const PlaceBasis basis = place_basis(p, *family);
      if (basis.basis == data::Basis::unavailable) return std::nullopt;
      if (basis.other_architecture && !model->measured(Unmeasured::architecture_spread)) return std::nullopt;
      if (basis.other_gpu && !model->measured(Unmeasured::gpu_spread)) return std::nullopt;
      const auto latent = model->predict(p);
      if (!latent) return std::nullopt;
      const double sd = std::sqrt(latent->mean_var + latent->card_var);
      if (std::getenv("ECOCOMPUTE_CALIBRATION_DEBUG") != nullptr) fprintf(stderr, "s %g sd %g card %g\n", latent->log_variance_sd, sd, std::sqrt(latent->card_var));
      const double t = mixture_quantile_factor(latent->log_variance_sd);
      return HeldOutAnswer{delta_pct_of(latent->mean), delta_pct_of(latent->mean - t * sd), delta_pct_of(latent->mean + t * sd),
                           basis.basis};
    });
  };
}

}  // namespace ecocompute::decide
