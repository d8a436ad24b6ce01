// Points from places.
#include "decide/model_point.hpp"

#include <cmath>

#include "decide/batch_regime.hpp"
#include "util/defaults.hpp"
#include "util/precision.hpp"

namespace ecocompute::decide {

std::string model_key(const std::string& engine, const std::string& precision) { return engine + "|" + precision; }

int context_beyond_baseline(int context) noexcept { return context > defaults::baseline_context ? context : 0; }

double context_covariate(std::string_view precision, int context) noexcept {
  if (context <= defaults::baseline_context) return 0.0;
  const double ratio = static_cast<double>(context) / defaults::baseline_context;
  return is_baseline_precision(precision) ? std::log(ratio) : 1.0 - 1.0 / ratio;
}

int context_group(int batch) noexcept { return batch <= 1 ? 0 : batch <= 8 ? 1 : 2; }

ModelPoint point_of(const CellPlace& place) {
  ModelPoint p;
  p.key = model_key(place.engine, place.precision);
  p.engine = place.engine;
  p.precision = place.precision;
  p.arch = place.arch;
  p.gpu = place.gpu;
  p.log_size = std::log(place.params_b);
  p.batch = place.batch;
  p.regime = batch_regime(place.engine, place.precision, place.arch, place.batch);
  p.regime_coordinate = regime_coordinate(place.engine, place.precision, place.arch, place.batch, p.regime);
  p.context = context_beyond_baseline(place.context);
  p.context_covariate = context_covariate(place.precision, p.context);
  p.context_group = context_group(place.batch);
  return p;
}

}  // namespace ecocompute::decide
