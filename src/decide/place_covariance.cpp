// A family's places laid out for the covariance rows of new points (see place_covariance.hpp).
#include "decide/place_covariance.hpp"

#include <algorithm>
#include <cmath>

namespace ecocompute::decide {
namespace {

// A point's four names as ids, each from `id(name, value)`: added to the tables (a place) or looked up
// in them (a question, −1 for a name no place has); names numbered as PlaceCovariance::Name.
template <typename Id>
PlaceCovariance::Ids ids_of(const ModelPoint& p, Id&& id) {
  return PlaceCovariance::Ids{id(0, p.arch), id(1, p.engine), id(2, p.key), id(3, p.gpu)};
}

template <typename T>
std::size_t index_in(std::vector<T>& values, T value) {
  const auto it = std::find(values.begin(), values.end(), value);
  if (it != values.end()) return static_cast<std::size_t>(it - values.begin());
  values.push_back(value);
  return values.size() - 1;
}

}  // namespace

PlaceCovariance::PlaceCovariance(const std::vector<ModelPoint>& places, double mean_log_size) : mean_log_size_(mean_log_size) {
  places_.reserve(places.size());
  for (const ModelPoint& p : places) {
    Place place;
    place.ids = ids_of(p, [&](int name, const std::string& value) {
      auto& ids = ids_[static_cast<std::size_t>(name)];
      return ids.try_emplace(value, static_cast<int>(ids.size())).first->second;
    });
    place.centred_size = p.log_size - mean_log_size;
    place.size_index = index_in(sizes_, place.centred_size);
    place.batch_index = index_in(batches_, p.batch);
    place.regime = p.regime;
    places_.push_back(place);
    for (const FixedEffect& e : effects_at(p)) {
      const auto [it, added] = covariates_.try_emplace({e.kind, e.group, e.regime});
      if (!added) continue;
      it->second.reserve(places.size());
      for (const ModelPoint& other : places) it->second.push_back(covariate(e, other, mean_log_size));
    }
  }
  zeros_.assign(places.size(), 0.0);
}

int PlaceCovariance::find_id(Name name, const std::string& value) const {
  const auto& ids = ids_[static_cast<std::size_t>(name)];
  const auto it = ids.find(value);
  return it != ids.end() ? it->second : -1;
}

PlaceCovariance::Point PlaceCovariance::point(const ModelPoint& p, const std::vector<PriorTerm>& terms) const {
  Point out;
  out.ids = ids_of(p, [&](int name, const std::string& value) { return find_id(static_cast<Name>(name), value); });
  out.centred_size = p.log_size - mean_log_size_;
  out.batch = p.batch;
  out.regime = p.regime;
  for (const PriorTerm& t : terms) {
    const auto it = covariates_.find({t.effect.kind, t.effect.group, t.effect.regime});
    out.term_weights.push_back(t.weight);
    out.term_covariates.push_back(it != covariates_.end() ? &it->second : &zeros_);
  }
  return out;
}

PlaceCovariance::Kernels PlaceCovariance::kernels(const Point& p, double size_scale, double batch_scale) const {
  Kernels k{size_scale, batch_scale, {}, {}};
  k.size.reserve(sizes_.size());
  for (double size : sizes_) k.size.push_back(covariance_kernel(p.centred_size - size, size_scale));
  if (p.regime > 0) {
    k.batch.reserve(batches_.size());
    for (int batch : batches_) k.batch.push_back(covariance_kernel(std::log(static_cast<double>(p.batch) / batch), batch_scale));
  }
  return k;
}

std::vector<double> PlaceCovariance::row(const Point& p, const Kernels& k, const VarianceComponents& c) const {
  std::vector<double> out(places_.size());
  for (std::size_t i = 0; i < places_.size(); ++i) {
    const Place& b = places_[i];
    double v = 0;
    if (b.ids.arch == p.ids.arch) {
      const bool same_key = b.ids.key == p.ids.key;
      if (same_key) v += c.arch + c.arch_slope * p.centred_size * b.centred_size + (p.ids.gpu == b.ids.gpu ? c.gpu : 0.0);
      if (b.ids.engine == p.ids.engine) {
        const double in_size = k.size[b.size_index];
        v += in_size * (c.shared + (same_key ? c.format : 0.0));
        if (p.regime > 0 && p.regime == b.regime) {
          v += k.batch[b.batch_index] * in_size * (c.batch_shared + (same_key ? c.batch_format : 0.0));
        }
      }
    }
    for (std::size_t t = 0; t < p.term_weights.size(); ++t) v += p.term_weights[t] * (*p.term_covariates[t])[i];
    out[i] = v;
  }
  return out;
}

}  // namespace ecocompute::decide
