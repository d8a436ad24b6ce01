// The gradient of a family's predictive variance in its free variance components (log scale), for the
// delta method of variance_uncertainty.hpp, from the fit's own factor. With u = K⁻¹k*, r = x* − X'u,
// C = (X'K⁻¹X)⁻¹ and V = k** − k*'u + r'Cr (docs/decision-layer.md, "Prediction"), a change of the
// covariance changes V, to first order, by
//
//     dV = dk** − 2 w'dk* + w'dK w,    w = u + K⁻¹X C r
//
// (the kriging part and the fixed effects' part together). Every random term couples the places of
// one group (architecture and engine, format, GPU or regime) through kernels of their distinct sizes
// and batches, so w'dK w is a sum over groups of small quadratic forms of w summed by size (and batch),
// not a product over every pair of places; the between-card term is on K's diagonal only.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "decide/family_reml.hpp"
#include "decide/place_covariance.hpp"
#include "decide/variance_components.hpp"

namespace ecocompute::decide {

struct Location;

class VarianceGradient {
 public:
  VarianceGradient(std::shared_ptr<const PlaceCovariance> table, const std::vector<Location>& locations,
                   const std::vector<FreeComponent>& free, const VarianceComponents& c, double card_floor);

  /// ∂(V + τ²_key)/∂x_j for each free component j at a point (laid out by the table, its kernels at
  /// the fit's length scales), given w of the point.
  [[nodiscard]] std::vector<double> at(const PlaceCovariance::Point& p, const PlaceCovariance::Kernels& k,
                                       const std::string& key, const std::vector<double>& w) const;

 private:
  static constexpr std::size_t kKinds = 10;  // FreeComponent::Which's values
  using PerKind = std::array<double, kKinds>;
  // Places summed by group and distinct size (and batch, for the regime terms) into cells: a pair of
  // places of one group meets through the kernels of its cells, up to three forms of them (a term and
  // its derivatives in the length scales), worked out once per fit for every pair of cells of a group.
  struct Cell {
    std::size_t size = 0, batch = 0;
  };
  using Weights = std::array<double, 3>;
  struct Grouping {
    std::vector<std::size_t> cell_of_place;  // npos: a place the grouping's term skips
    std::vector<std::size_t> group_begin;    // where each group's cells begin, and the end
    std::vector<Weights> pairs;              // per group, its pairs x ≤ y of cells in order; x < y twice
  };
  // Places by group (`key_of`: none for a place the term skips) and size, and batch if `with_batch`;
  // `weights_of(x, y)` the kernels of a pair of cells.
  template <class Key, class WeightsOf>
  [[nodiscard]] Grouping grouping(Key key_of, bool with_batch, WeightsOf weights_of) const;
  // Σ over groups of a'W_k a for the three weights, a the group's w summed by cell.
  [[nodiscard]] static Weights forms(const Grouping& g, const std::vector<double>& w);
  void add_point_terms(const PlaceCovariance::Point& p, const PlaceCovariance::Kernels& k, const std::vector<double>& w,
                       PerKind& out) const;
  void add_place_terms(const std::vector<double>& w, PerKind& out) const;
  [[nodiscard]] const std::vector<double>& card_gradient(const std::string& key) const;

  std::shared_ptr<const PlaceCovariance> table_;
  std::vector<FreeComponent> free_;
  VarianceComponents c_;
  Grouping arch_engine_, arch_engine_key_, arch_key_, arch_key_gpu_, regime_, regime_key_;
  std::vector<double> card_slope_;  // per place: ∂K_ii/∂τ², K_ii the variance of its weighted mean
  // ∂τ²/∂x per key: row 0 for every key without a component of its own (the pooled τ²).
  std::vector<std::vector<double>> card_rows_;
  std::map<std::string, std::size_t> card_row_of_key_;
  std::vector<std::size_t> card_row_of_place_;
};

}  // namespace ecocompute::decide
