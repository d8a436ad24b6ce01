// The gradient of a family's predictive variance in its variance components (see variance_gradient.hpp).
#include "decide/variance_gradient.hpp"

#include <cmath>
#include <optional>

#include "decide/family_fit.hpp"

namespace ecocompute::decide {
namespace {

using Which = FreeComponent::Which;
using Place = PlaceCovariance::Place;
using GroupKey = std::array<long long, 4>;
constexpr std::size_t kNone = static_cast<std::size_t>(-1);

constexpr std::size_t kind(Which w) { return static_cast<std::size_t>(w); }

double squared(double x) { return x * x; }

}  // namespace

VarianceGradient::VarianceGradient(std::shared_ptr<const PlaceCovariance> table, const std::vector<Location>& locations,
                                   const std::vector<FreeComponent>& free, const VarianceComponents& c, double card_floor)
    : table_(std::move(table)), free_(free), c_(c) {
  // Kernels between the distinct sizes and batches, and their derivatives in the log length scale,
  // k·(d/ℓ)².
  const std::vector<double>& sizes = table_->sizes();
  const auto size_kernels = [&](const Cell& x, const Cell& y) {
    const double d = sizes[x.size] - sizes[y.size], k = covariance_kernel(d, c.size_scale);
    return std::pair{k, k * squared(d / c.size_scale)};
  };
  const auto batch_kernels = [&](const Cell& x, const Cell& y) {
    const double d = std::log(static_cast<double>(table_->batches()[x.batch]) / table_->batches()[y.batch]);
    const double k = covariance_kernel(d, c.batch_scale);
    return std::pair{k, k * squared(d / c.batch_scale)};
  };
  const auto in_size = [&](const Cell& x, const Cell& y) {
    const auto [k, dk] = size_kernels(x, y);
    return Weights{k, dk, 0.0};
  };
  const auto in_size_and_batch = [&](const Cell& x, const Cell& y) {
    const auto [ks, dks] = size_kernels(x, y);
    const auto [kb, dkb] = batch_kernels(x, y);
    return Weights{ks * kb, dks * kb, ks * dkb};
  };
  using Key = std::optional<GroupKey>;
  arch_engine_ = grouping([](const Place& p) { return Key(GroupKey{p.ids.arch, p.ids.engine, 0, 0}); }, false, in_size);
  arch_engine_key_ = grouping([](const Place& p) { return Key(GroupKey{p.ids.arch, p.ids.engine, p.ids.key, 0}); }, false, in_size);
  arch_key_ = grouping([](const Place& p) { return Key(GroupKey{p.ids.arch, p.ids.key, 0, 0}); }, false,
                       [&](const Cell& x, const Cell& y) { return Weights{1.0, sizes[x.size] * sizes[y.size], 0.0}; });
  arch_key_gpu_ = grouping([](const Place& p) { return Key(GroupKey{p.ids.arch, p.ids.key, p.ids.gpu, 0}); }, false,
                           [](const Cell&, const Cell&) { return Weights{1.0, 0.0, 0.0}; });
  regime_ = grouping([](const Place& p) { return p.regime > 0 ? Key(GroupKey{p.ids.arch, p.ids.engine, p.regime, 0}) : Key(); }, true,
                     in_size_and_batch);
  regime_key_ = grouping([](const Place& p) { return p.regime > 0 ? Key(GroupKey{p.ids.arch, p.ids.engine, p.regime, p.ids.key}) : Key(); },
                         true, in_size_and_batch);

  card_rows_.push_back(card_var_gradient(free, card_floor, locations, c, nullptr));
  for (const auto& [key, value] : c.card) {
    card_row_of_key_.emplace(key, card_rows_.size());
    card_rows_.push_back(card_var_gradient(free, card_floor, locations, c, &key));
  }
  for (const Location& l : locations) {
    const double card = c.card_var(l.point.key);
    double first = 0, second = 0;
    for (double within : l.within) {
      first += 1.0 / (card + within);
      second += 1.0 / squared(card + within);
    }
    card_slope_.push_back(second / squared(first));  // d(1/Σw)/dτ² with w = 1/(τ² + within)
    const auto row = card_row_of_key_.find(l.point.key);
    card_row_of_place_.push_back(row != card_row_of_key_.end() ? row->second : 0);
  }
}

template <class Key, class WeightsOf>
VarianceGradient::Grouping VarianceGradient::grouping(Key key_of, bool with_batch, WeightsOf weights_of) const {
  // Cells numbered in the order of (group, size, batch), so that a group's cells are together.
  std::map<std::array<long long, 6>, std::size_t> numbers;
  std::vector<std::optional<std::array<long long, 6>>> full;
  for (const Place& p : table_->places()) {
    const auto group = key_of(p);
    if (!group) {
      full.emplace_back();
      continue;
    }
    const std::array<long long, 6> key{(*group)[0], (*group)[1], (*group)[2], (*group)[3], static_cast<long long>(p.size_index),
                                       with_batch ? static_cast<long long>(p.batch_index) : 0};
    numbers.emplace(key, 0);
    full.push_back(key);
  }
  Grouping g;
  std::vector<Cell> cells;
  std::optional<std::array<long long, 4>> previous;
  for (auto& [key, index] : numbers) {
    index = cells.size();
    const std::array<long long, 4> group{key[0], key[1], key[2], key[3]};
    if (group != previous) g.group_begin.push_back(index);
    previous = group;
    cells.push_back(Cell{static_cast<std::size_t>(key[4]), static_cast<std::size_t>(key[5])});
  }
  g.group_begin.push_back(cells.size());
  for (const auto& key : full) g.cell_of_place.push_back(key ? numbers.at(*key) : kNone);
  for (std::size_t group = 0; group + 1 < g.group_begin.size(); ++group) {
    for (std::size_t x = g.group_begin[group]; x < g.group_begin[group + 1]; ++x) {
      for (std::size_t y = x; y < g.group_begin[group + 1]; ++y) {
        Weights k = weights_of(cells[x], cells[y]);
        if (y != x) {
          for (double& v : k) v *= 2;
        }
        g.pairs.push_back(k);
      }
    }
  }
  return g;
}

VarianceGradient::Weights VarianceGradient::forms(const Grouping& g, const std::vector<double>& w) {
  std::vector<double> sums(g.group_begin.empty() ? 0 : g.group_begin.back(), 0.0);
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (g.cell_of_place[i] != kNone) sums[g.cell_of_place[i]] += w[i];
  }
  Weights out{};
  const Weights* pair = g.pairs.data();
  for (std::size_t group = 0; group + 1 < g.group_begin.size(); ++group) {
    for (std::size_t x = g.group_begin[group]; x < g.group_begin[group + 1]; ++x) {
      for (std::size_t y = x; y < g.group_begin[group + 1]; ++y, ++pair) {
        const double a = sums[x] * sums[y];
        out[0] += a * (*pair)[0];
        out[1] += a * (*pair)[1];
        out[2] += a * (*pair)[2];
      }
    }
  }
  return out;
}

const std::vector<double>& VarianceGradient::card_gradient(const std::string& key) const {
  const auto row = card_row_of_key_.find(key);
  return card_rows_[row != card_row_of_key_.end() ? row->second : 0];
}

// dk** − 2 w'dk* for each kind: the point with itself, and with every place it shares a group with.
void VarianceGradient::add_point_terms(const PlaceCovariance::Point& p, const PlaceCovariance::Kernels& k,
                                       const std::vector<double>& w, PerKind& out) const {
  const double u = p.centred_size;
  out[kind(Which::shared)] += c_.shared;
  out[kind(Which::format)] += c_.format;
  out[kind(Which::arch)] += c_.arch;
  out[kind(Which::arch_slope)] += c_.arch_slope * u * u;
  out[kind(Which::gpu)] += c_.gpu;
  if (p.regime > 0) {
    out[kind(Which::batch_shared)] += c_.batch_shared;
    out[kind(Which::batch_format)] += c_.batch_format;
  }
  const std::vector<double>& sizes = table_->sizes();
  std::vector<double> size_dk(sizes.size()), batch_dk(k.batch.size());
  for (std::size_t s = 0; s < sizes.size(); ++s) size_dk[s] = k.size[s] * squared((u - sizes[s]) / k.size_scale);
  for (std::size_t b = 0; b < k.batch.size(); ++b) {
    batch_dk[b] = k.batch[b] * squared(std::log(static_cast<double>(p.batch) / table_->batches()[b]) / k.batch_scale);
  }
  PerKind d{};
  const std::vector<Place>& places = table_->places();
  for (std::size_t i = 0; i < places.size(); ++i) {
    const Place& b = places[i];
    if (b.ids.arch != p.ids.arch) continue;
    const bool same_key = b.ids.key == p.ids.key;
    if (same_key) {
      d[kind(Which::arch)] += w[i] * c_.arch;
      d[kind(Which::arch_slope)] += w[i] * c_.arch_slope * u * b.centred_size;
      if (b.ids.gpu == p.ids.gpu) d[kind(Which::gpu)] += w[i] * c_.gpu;
    }
    if (b.ids.engine != p.ids.engine) continue;
    const double ks = k.size[b.size_index];
    d[kind(Which::shared)] += w[i] * ks * c_.shared;
    if (same_key) d[kind(Which::format)] += w[i] * ks * c_.format;
    d[kind(Which::size_scale)] += w[i] * size_dk[b.size_index] * (c_.shared + (same_key ? c_.format : 0.0));
    if (p.regime > 0 && p.regime == b.regime) {
      const double kb = k.batch[b.batch_index];
      const double t = c_.batch_shared + (same_key ? c_.batch_format : 0.0);
      d[kind(Which::batch_shared)] += w[i] * kb * ks * c_.batch_shared;
      if (same_key) d[kind(Which::batch_format)] += w[i] * kb * ks * c_.batch_format;
      d[kind(Which::size_scale)] += w[i] * kb * size_dk[b.size_index] * t;
      d[kind(Which::batch_scale)] += w[i] * batch_dk[b.batch_index] * ks * t;
    }
  }
  for (std::size_t j = 0; j < kKinds; ++j) out[j] -= 2 * d[j];
}

// w'dK w for each kind but the cards': the terms between places, by group.
void VarianceGradient::add_place_terms(const std::vector<double>& w, PerKind& out) const {
  const Weights shared = forms(arch_engine_, w), format = forms(arch_engine_key_, w);
  out[kind(Which::shared)] += c_.shared * shared[0];
  out[kind(Which::format)] += c_.format * format[0];
  out[kind(Which::size_scale)] += c_.shared * shared[1] + c_.format * format[1];
  const Weights arch = forms(arch_key_, w);
  out[kind(Which::arch)] += c_.arch * arch[0];
  out[kind(Which::arch_slope)] += c_.arch_slope * arch[1];
  out[kind(Which::gpu)] += c_.gpu * forms(arch_key_gpu_, w)[0];
  const Weights batch = forms(regime_, w), batch_format = forms(regime_key_, w);
  out[kind(Which::batch_shared)] += c_.batch_shared * batch[0];
  out[kind(Which::batch_format)] += c_.batch_format * batch_format[0];
  out[kind(Which::size_scale)] += c_.batch_shared * batch[1] + c_.batch_format * batch_format[1];
  out[kind(Which::batch_scale)] += c_.batch_shared * batch[2] + c_.batch_format * batch_format[2];
}

std::vector<double> VarianceGradient::at(const PlaceCovariance::Point& p, const PlaceCovariance::Kernels& k,
                                         const std::string& key, const std::vector<double>& w) const {
  PerKind per{};
  add_point_terms(p, k, w, per);
  add_place_terms(w, per);
  const std::vector<double>& point_card = card_gradient(key);
  std::vector<double> out(free_.size());
  for (std::size_t j = 0; j < free_.size(); ++j) out[j] = per[kind(free_[j].which)] + point_card[j];
  for (std::size_t i = 0; i < w.size(); ++i) {  // the cards' part of w'dK w: K's diagonal
    const std::vector<double>& row = card_rows_[card_row_of_place_[i]];
    const double q = w[i] * w[i] * card_slope_[i];
    for (std::size_t j = 0; j < out.size(); ++j) out[j] += q * row[j];
  }
  return out;
}

}  // namespace ecocompute::decide
