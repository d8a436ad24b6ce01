// The fixed effects of the decision model: per engine and format a level and a slope in ln size;
// per engine and kernel regime above batch 1 a level and a slope in ln batch (shared by the
// engine's formats, whose own deviations are random); per engine and format and batch group a
// slope in the context's covariate beyond the baseline context (context_covariate, model_point.hpp).
// A column enters only where the data identify it (it adds to the rank of the design); an effect a
// question needs that the data do not identify is drawn from the spread of the same kind of effect
// where it is identified (EffectPriors).
#pragma once

#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "decide/dense_matrix.hpp"
#include "decide/model_point.hpp"
#include "util/json.hpp"

namespace ecocompute::decide {

enum class EffectKind { level, size_slope, regime_level, regime_slope, context_slope };

struct FixedEffect {
  EffectKind kind = EffectKind::level;
  std::string group;  ///< the key (level, size_slope, context_slope) or the engine (regime_level, regime_slope)
  int regime = 0;     ///< the kernel regime (regime_level, regime_slope) or the batch group (context_slope)
  friend bool operator==(const FixedEffect&, const FixedEffect&) = default;
};

/// Whether an effect applies at a point: its format (level, slopes), its engine in its regime
/// (regime effects) or its format in its batch group (context slope).
bool applies(const FixedEffect& effect, const ModelPoint& p);

/// The covariate of an effect at a point (0 when the effect does not apply there).
double covariate(const FixedEffect& effect, const ModelPoint& p, double mean_log_size);

/// The effects that apply at a point (whether or not a design has them).
std::vector<FixedEffect> effects_at(const ModelPoint& p);

/// The kinds of the effects that apply at a point, in effects_at's order: at one point each kind names
/// one effect (its group and regime are the point's), so a prediction walks them without building
/// the effects' names.
class EffectKindsAt {
 public:
  explicit EffectKindsAt(const ModelPoint& p);
  [[nodiscard]] const EffectKind* begin() const noexcept { return kinds_.data(); }
  [[nodiscard]] const EffectKind* end() const noexcept { return kinds_.data() + count_; }

 private:
  std::array<EffectKind, 5> kinds_{};
  std::size_t count_ = 0;
};

/// The effect of `kind` at p, and its covariate there (`kind` one of EffectKindsAt(p)).
FixedEffect effect_at(EffectKind kind, const ModelPoint& p);
double covariate_at(EffectKind kind, const ModelPoint& p, double mean_log_size);

/// The fixed-effect columns of one family's design.
struct Design {
  std::vector<FixedEffect> effects;
  double mean_log_size = 0;

  /// The design matrix of the points (one row each).
  [[nodiscard]] Matrix matrix(const std::vector<ModelPoint>& points) const;
  [[nodiscard]] std::vector<double> row(const ModelPoint& p) const;
  [[nodiscard]] bool has(const FixedEffect& effect) const;
  /// has(effect_at(kind, p)), without building the effect.
  [[nodiscard]] bool has_at(EffectKind kind, const ModelPoint& p) const;
  [[nodiscard]] std::optional<std::size_t> index_of(const FixedEffect& effect) const;
};

/// The design of a family's measured points: every effect that applies at one of them and adds to
/// the rank, in a fixed order (levels, size slopes, regime levels, regime slopes, context slopes).
Design make_design(const std::vector<ModelPoint>& points);

/// The distribution an unidentified effect is drawn from: the mean and spread of the identified
/// estimates of its kind (with their own standard errors); with one estimate, mean 0 and that
/// estimate as its SD; with none, no prior (the question cannot be answered).
struct EffectPrior {
  double mean = 0;
  double variance = 0;
  int estimates = 0;
};
using EffectPriors = std::map<EffectKind, EffectPrior>;

/// One identified estimate and its variance, for the priors.
struct EffectEstimate {
  EffectKind kind = EffectKind::level;
  double value = 0, variance = 0;
};
EffectPriors make_priors(const std::vector<EffectEstimate>& estimates);

std::string_view to_string(EffectKind kind) noexcept;
void to_json(Json& j, const FixedEffect& e);
void from_json(const Json& j, FixedEffect& e);
void to_json(Json& j, const EffectPrior& p);
void from_json(const Json& j, EffectPrior& p);

}  // namespace ecocompute::decide
