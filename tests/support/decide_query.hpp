// Test support: a decision-model question by the names a user types (a GPU from the alias table, a
// format with its default engine), at a size, batch and context.
#pragma once

#include <string>

#include "data/gpu_spec.hpp"
#include "decide/prediction.hpp"
#include "util/precision.hpp"

namespace ecocompute::testing {

inline decide::Query ask_query(double params_b, const std::string& gpu, const std::string& precision, int batch = 1,
                               int context = 2048) {
  decide::Query q;
  q.params_b = params_b;
  auto spec = data::find_gpu(gpu);
  q.gpu = *spec;
  q.arch = spec->arch;
  q.precision = *parse_precision(precision);
  q.engine = std::string(q.precision.default_engine);
  q.batch = batch;
  q.context = context;
  return q;
}

}  // namespace ecocompute::testing
