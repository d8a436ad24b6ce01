// The restricted likelihood of one family's variance components and which of them its cells
// identify. Internal to family_fit.
#pragma once

#include <string>
#include <vector>

#include "decide/fixed_effects.hpp"
#include "decide/variance_components.hpp"

namespace ecocompute::decide {

struct Location;

/// A variance component the search moves, on a log scale.
struct FreeComponent {
  enum class Which { card, shared, format, size_scale, arch, arch_slope, gpu, batch_shared, batch_format, batch_scale };
  Which which = Which::card;
  std::string key;  ///< for card
};

/// The components the locations identify: τ² of a key that two sessions measured at one place; the
/// shared term where two formats of an engine share a size; the format term and its length scale
/// where a format has three sizes or more; the architecture terms where a format was measured on two
/// architectures; the GPU term where it was measured on two GPUs of one; the batch terms where cells
/// above batch 1 outnumber the regime effects (shared: two formats in one regime).
std::vector<FreeComponent> identified_components(const std::vector<Location>& locations, const Design& design);

/// The largest value (log scale) each free component may take, from the data (docs/decision-layer.md,
/// "Estimation"): a variance at most the total variance of the family's cell values about their mean
/// (every random term is part of that marginal variance), an architecture slope's variance at most that
/// total over the squared span of ln size, and a length scale at most the span of its covariate (ln size,
/// ln batch above batch 1) that the places cover: a longer scale is a polynomial the levels and slopes
/// already are, and the likelihood cannot tell its variance from theirs.
std::vector<double> component_ceilings(const std::vector<FreeComponent>& free, const std::vector<Location>& locations);

/// Whether a free component is a length scale (size or batch) rather than a variance.
bool is_length_scale(const FreeComponent& c);

/// A start for the search from the data alone (log scale): each key's τ² by the method of moments
/// (over the places two or more sessions measured, the sessions' sample variance less their mean
/// within-session variance, pooled by degrees of freedom; at least `card_floor`), every other variance
/// at its ceiling and each length scale at 0.5. Where places are replicated this puts the search
/// among small between-card and large shared variances, the corner the quasi-random starts reach least.
std::vector<double> moment_start(const std::vector<FreeComponent>& free, const std::vector<double>& ceilings,
                                 const std::vector<Location>& locations, double card_floor);

/// Writes e^x into the components (τ² at least `card_floor`); τ² of a key no place replicates is
/// the degrees-of-freedom weighted mean of the identified ones.
void set_components(const std::vector<FreeComponent>& free, const std::vector<double>& x, double card_floor,
                    const std::vector<Location>& locations, VarianceComponents& c);
/// ∂τ²/∂x_j of set_components, j over `free`: of a key's own τ² (none at the floor, where it is held),
/// or with `key` null of the pooled τ² that keys without their own take, through the keys it averages.
std::vector<double> card_var_gradient(const std::vector<FreeComponent>& free, double card_floor,
                                      const std::vector<Location>& locations, const VarianceComponents& c,
                                      const std::string* key);
/// The log of each free component's current value.
std::vector<double> get_components(const std::vector<FreeComponent>& free, const VarianceComponents& c);

/// −2 × the restricted log-likelihood (constants dropped) of the cells given the components; +∞
/// when the covariance is not positive definite.
double reml_objective(const std::vector<Location>& locations, const Design& design, const VarianceComponents& c);

}  // namespace ecocompute::decide
