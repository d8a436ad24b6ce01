// Points from places.
#include "decide/model_point.hpp"

#include <cmath>

#include "decide/batch_regime.hpp"

namespace ecocompute::decide {

std::string model_key(const std::string& engine, const std::string& precision) { return engine + "|" + precision; }

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
  const int first = regime_first_batch(place.engine, place.precision, place.arch, p.regime);
  p.regime_log_batch = p.regime == 0 ? 0.0 : std::log(static_cast<double>(place.batch) / first);
  return p;
}

}  // namespace ecocompute::decide
