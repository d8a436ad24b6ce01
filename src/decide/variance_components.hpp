// The decision model's variance components and the covariance they give two points. Every term is
// a random effect of the linear mixed model written out in docs/decision-layer.md ("The model"):
//
//   between cards    τ²_key            a card (session) at one place, per engine and format
//   shared in size   σ²_S k(Δu; ℓ)     what a model of this size does to every format of the engine
//   format in size   σ²_F k(Δu; ℓ)     what it does to this format only
//   architecture     σ²_A + σ²_L u u'  this format's level and slope on another architecture
//   GPU              σ²_G              this format on another GPU of the architecture
//   batch            k(Δlb; ℓ_b) k(Δu; ℓ) (σ²_B0 + σ²_Bp [same format])  within one kernel regime
//
// k(d; ℓ) = exp(−d²/2ℓ²), u = ln N − ū (ū: the family's mean ln N), lb = ln batch. Terms couple
// points of one architecture and (but for the architecture terms) one engine only.
#pragma once

#include <map>
#include <string>

#include "decide/model_point.hpp"
#include "util/json.hpp"

namespace ecocompute::decide {

/// k(d; ℓ) = exp(−d²/2ℓ²).
double covariance_kernel(double distance, double scale);

struct VarianceComponents {
  std::map<std::string, double> card;  ///< τ² per key; keys absent use card_pooled
  double card_pooled = 0;              ///< τ² for a key whose places no two sessions share
  double shared = 0, format = 0, size_scale = 1;
  double arch = 0, arch_slope = 0, gpu = 0;
  double batch_shared = 0, batch_format = 0, batch_scale = 1;

  /// τ² of a key.
  [[nodiscard]] double card_var(const std::string& key) const;
  /// The covariance of the random effects at two points (not the between-card term).
  [[nodiscard]] double covariance(const ModelPoint& a, const ModelPoint& b, double mean_log_size) const;
  /// The same for one point with itself on a GPU and architecture no cell shares (a prior variance).
  [[nodiscard]] double prior_variance(const ModelPoint& p, double mean_log_size) const;
};

void to_json(Json& j, const VarianceComponents& v);
void from_json(const Json& j, VarianceComponents& v);

}  // namespace ecocompute::decide
