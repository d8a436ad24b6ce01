// The basis of a predicted figure (see place_basis.hpp).
#include "decide/place_basis.hpp"

#include <algorithm>
#include <cmath>

namespace ecocompute::decide {

PlaceBasis place_basis(const ModelPoint& asked, const FamilyFit& family) {
  PlaceBasis b;
  std::vector<const Location*> format, on_arch;
  for (const Location& l : family.locations()) {
    if (l.point.key != asked.key) continue;
    format.push_back(&l);
    if (l.point.arch == asked.arch) on_arch.push_back(&l);
  }
  if (format.empty()) return b;
  b.other_architecture = on_arch.empty();
  const std::vector<const Location*>& pool = b.other_architecture ? format : on_arch;
  b.other_gpu = !b.other_architecture && std::none_of(pool.begin(), pool.end(), [&](const Location* l) { return l->point.gpu == asked.gpu; });
  for (const Location* l : pool) {
    if (l->point.regime == asked.regime) b.format_places.push_back(l);
  }
  b.regime_unmeasured = b.format_places.empty();
  data::Basis kind = data::Basis::modelled;
  if (!b.regime_unmeasured) {
    b.size_min = b.size_max = b.format_places.front()->place.params_b;
    b.batch_min = b.batch_max = b.format_places.front()->point.batch;
    for (const Location* l : b.format_places) {
      b.size_min = std::min(b.size_min, l->place.params_b);
      b.size_max = std::max(b.size_max, l->place.params_b);
      b.batch_min = std::min(b.batch_min, l->point.batch);
      b.batch_max = std::max(b.batch_max, l->point.batch);
      if (l->point.log_size == asked.log_size && l->point.batch == asked.batch && l->point.gpu == asked.gpu) b.same_place.push_back(l);
    }
    const double n = std::exp(asked.log_size);
    const bool inside = n >= b.size_min * (1 - 1e-12) && n <= b.size_max * (1 + 1e-12) && asked.batch >= b.batch_min &&
                        asked.batch <= b.batch_max;
    kind = !b.same_place.empty() ? data::Basis::measured : inside ? data::Basis::interpolated : data::Basis::extrapolated;
  }
  b.place_kind = kind;
  if (b.other_architecture || b.other_gpu) kind = data::worse(kind, data::Basis::borrowed);
  b.basis = kind;
  return b;
}

}  // namespace ecocompute::decide
