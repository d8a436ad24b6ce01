// The basis of a predicted figure (see place_basis.hpp).
#include "decide/place_basis.hpp"

#include <algorithm>
#include <cmath>

namespace ecocompute::decide {
namespace {

bool same_size_batch_gpu(const ModelPoint& a, const ModelPoint& b) {
  return a.log_size == b.log_size && a.batch == b.batch && a.gpu == b.gpu;
}

// The judgement against the format's places at a context in the asked batch group (see the header).
data::Basis context_kind(const ModelPoint& asked, const std::vector<const Location*>& pool, PlaceBasis& b) {
  std::vector<const Location*> same;
  for (const Location* l : pool) {
    if (l->point.context > 0 && l->point.context_group == asked.context_group) b.context_places.push_back(l);
  }
  b.context_unmeasured = b.context_places.empty();
  if (b.context_unmeasured) return data::Basis::modelled;
  double size_min = INFINITY, size_max = 0;
  int batch_min = b.context_places.front()->point.batch, batch_max = batch_min;
  for (const Location* l : b.context_places) {
    size_min = std::min(size_min, l->place.params_b);
    size_max = std::max(size_max, l->place.params_b);
    batch_min = std::min(batch_min, l->point.batch);
    batch_max = std::max(batch_max, l->point.batch);
    b.context_max = std::max(b.context_max, l->point.context);
    if (same_size_batch_gpu(l->point, asked) && l->point.context == asked.context) same.push_back(l);
  }
  if (!same.empty()) {
    b.same_place = std::move(same);
    return data::Basis::measured;
  }
  const double n = std::exp(asked.log_size);
  const bool inside = n >= size_min * (1 - 1e-12) && n <= size_max * (1 + 1e-12) && asked.batch >= batch_min && asked.batch <= batch_max &&
                      asked.context <= b.context_max;
  return inside ? data::Basis::interpolated : data::Basis::extrapolated;
}

// The extent of a place whose size was not measured, by where the size lies against the measured ones.
Extent unmeasured_size(bool batch_seen, double log_size, double log_min, double log_max) {
  if (log_size < log_min) return batch_seen ? Extent::size_below : Extent::size_below_and_batch;
  if (log_size > log_max) return batch_seen ? Extent::size_above : Extent::size_above_and_batch;
  return batch_seen ? Extent::size : Extent::size_and_batch;
}

// What the asked place lacks: its size and its batch each looked for among the format's places at
// the baseline context on the architecture (any regime, any GPU of it); and the measured size nearest
// the asked one among them.
void judge_extent(const ModelPoint& asked, const std::vector<const Location*>& pool, PlaceBasis& b) {
  bool batch_seen = false;
  double log_min = INFINITY, log_max = -INFINITY;
  b.nearest_log_size = asked.log_size;
  b.size_distance = INFINITY;
  for (const Location* l : pool) {
    if (l->point.context != 0) continue;
    batch_seen = batch_seen || l->point.batch == asked.batch;
    log_min = std::min(log_min, l->point.log_size);
    log_max = std::max(log_max, l->point.log_size);
    if (const double d = std::abs(l->point.log_size - asked.log_size); d < b.size_distance) {
      b.size_distance = d;
      b.nearest_log_size = l->point.log_size;
      b.nearest_params_b = l->place.params_b;
    }
  }
  const bool size_seen = b.size_distance == 0;
  if (!std::isfinite(b.size_distance)) {  // nothing at the baseline context: no size to be near
    b.size_distance = 0;
    log_min = log_max = asked.log_size;
  }
  if (size_seen) b.extent = batch_seen ? Extent::card : Extent::batch;
  else b.extent = unmeasured_size(batch_seen, asked.log_size, log_min, log_max);
}

}  // namespace

PlaceBasis place_basis(const ModelPoint& asked, const FamilyFit& family) {
  PlaceBasis b;
  std::vector<const Location*> format, on_arch;
  for (const Location* l : family.places_of(asked.key)) {
    format.push_back(l);
    if (l->point.arch == asked.arch) on_arch.push_back(l);
  }
  if (format.empty()) return b;
  b.other_architecture = on_arch.empty();
  const std::vector<const Location*>& pool = b.other_architecture ? format : on_arch;
  b.other_gpu = !b.other_architecture && std::none_of(pool.begin(), pool.end(), [&](const Location* l) { return l->point.gpu == asked.gpu; });
  for (const Location* l : pool) {
    if (l->point.regime == asked.regime && l->point.context == 0) b.format_places.push_back(l);
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
      if (same_size_batch_gpu(l->point, asked)) b.same_place.push_back(l);
    }
    const double n = std::exp(asked.log_size);
    const bool inside = n >= b.size_min * (1 - 1e-12) && n <= b.size_max * (1 + 1e-12) && asked.batch >= b.batch_min &&
                        asked.batch <= b.batch_max;
    kind = !b.same_place.empty() ? data::Basis::measured : inside ? data::Basis::interpolated : data::Basis::extrapolated;
  }
  judge_extent(asked, pool, b);
  if (asked.context > 0) {
    b.same_place.clear();  // the short-context places are not the asked place
    const data::Basis at_context = context_kind(asked, pool, b);
    kind = at_context == data::Basis::measured ? data::Basis::measured : data::worse(kind, at_context);
    if (at_context == data::Basis::measured) b.extent = Extent::card;
    else if (b.extent == Extent::card) b.extent = Extent::context;
  }
  b.place_kind = kind;
  if (b.other_architecture || b.other_gpu) kind = data::worse(kind, data::Basis::borrowed);
  b.basis = kind;
  return b;
}

}  // namespace ecocompute::decide
