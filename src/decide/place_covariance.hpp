// The covariance of a new point with each measured place of a family, the row every prediction
// needs (k* of the model in docs/decision-layer.md). The places are laid out once per fit: names
// become small ids, and each place's size and batch an index into the family's distinct values, so
// that a row costs two string lookups per name of the point and one kernel per distinct size and
// batch, not a string comparison and a kernel per place. A row equals, to the bit, the sum that
// VarianceComponents::covariance and the prior terms give place by place (the same operations in
// the same order).
#pragma once

#include <array>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "decide/fixed_effects.hpp"
#include "decide/model_point.hpp"
#include "decide/variance_components.hpp"

namespace ecocompute::decide {

/// An effect drawn from its prior at a point, with its prior variance times its covariate there: the
/// point's part of that effect's covariance with any other point.
struct PriorTerm {
  FixedEffect effect;
  double weight = 0;
};

class PlaceCovariance {
 public:
  /// What a point's rows need whatever the variance components: its names as the places' ids (−1:
  /// no place has it), its centred size, and the covariate of each of its prior terms at each place
  /// (the table's, valid while the table lives).
  struct Ids {
    int arch = -1, engine = -1, key = -1, gpu = -1;
  };
  struct Point {
    Ids ids;
    double centred_size = 0;
    int batch = 1, regime = 0;
    std::vector<double> term_weights;
    std::vector<const std::vector<double>*> term_covariates;  ///< per term: its covariate at each place (the table's)
  };
  /// The point's kernels at the places' distinct sizes and batches, for one pair of length scales.
  struct Kernels {
    double size_scale = 0, batch_scale = 0;
    std::vector<double> size, batch;
  };

  /// A place as the rows see it: its names' ids, centred size, the indices of its size and batch
  /// among the distinct ones, its regime.
  struct Place {
    Ids ids;
    double centred_size = 0;
    std::size_t size_index = 0, batch_index = 0;
    int regime = 0;
  };

  PlaceCovariance() = default;
  PlaceCovariance(const std::vector<ModelPoint>& places, double mean_log_size);

  [[nodiscard]] const std::vector<Place>& places() const { return places_; }
  [[nodiscard]] const std::vector<double>& sizes() const { return sizes_; }  ///< distinct centred sizes
  [[nodiscard]] const std::vector<int>& batches() const { return batches_; }  ///< distinct batches

  [[nodiscard]] Point point(const ModelPoint& p, const std::vector<PriorTerm>& terms) const;
  [[nodiscard]] Kernels kernels(const Point& p, double size_scale, double batch_scale) const;
  /// The covariance of the point with every place: the components' terms, then the prior terms.
  [[nodiscard]] std::vector<double> row(const Point& p, const Kernels& k, const VarianceComponents& c) const;

 private:
  enum Name { kArch, kEngine, kKey, kGpu };
  [[nodiscard]] int find_id(Name name, const std::string& value) const;

  double mean_log_size_ = 0;
  std::vector<Place> places_;
  std::vector<double> sizes_;
  std::vector<int> batches_;
  std::array<std::unordered_map<std::string, int>, 4> ids_;  // per Name: its values' ids
  // covariate() (fixed_effects.hpp) at every place, for each effect that applies at one of them; an
  // effect that applies at none has zeros_.
  std::map<std::tuple<EffectKind, std::string, int>, std::vector<double>> covariates_;
  std::vector<double> zeros_;
};

}  // namespace ecocompute::decide
