// One engine family's part of the decision model: its measured places (cells of one place collapsed
// to their precision-weighted mean, which is exact for independent between-card effects), the
// fixed-effect design, the variance components and the factored covariance, ready to predict.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "decide/dense_matrix.hpp"
#include "decide/family_reml.hpp"
#include "decide/fixed_effects.hpp"
#include "decide/model_cells.hpp"
#include "decide/place_covariance.hpp"
#include "decide/variance_components.hpp"
#include "decide/variance_gradient.hpp"
#include "util/kept_answers.hpp"

namespace ecocompute::decide {

/// The cells of one place.
struct Location {
  ModelPoint point;
  CellPlace place;
  std::string model;  ///< the model measured there (the first cell's)
  std::vector<double> values;
  std::vector<double> within;  ///< within-session variance of each value
  std::vector<std::string> sessions;
  /// Positions in `sessions` in the order of their ids, each id once: the labels an answer lists are
  /// merged from these instead of sorting thousands of ids per answer.
  std::vector<std::uint32_t> session_order;
};

/// Location::session_order of these ids; `rank` (optional) orders them as their ids do, faster than
/// comparing the ids.
std::vector<std::uint32_t> session_order(const std::vector<std::string>& sessions,
                                         const std::vector<std::uint32_t>* rank = nullptr);

/// Groups cells into locations (one per place), in a stable order.
std::vector<Location> locations_of(const std::vector<Cell>& cells);

/// A prediction of the latent mean at a point: what a card of that GPU model gives on average, with
/// the variance of that mean; the between-card variance of the key is kept apart.
struct LatentPrediction {
  double mean = 0;
  double mean_var = 0;       ///< posterior variance of the mean at the point, the effects' included
  double card_var = 0;       ///< τ² of the key: another card at the same place
  /// The SD of ln(mean_var + card_var) from the uncertainty of the variance components and priors
  /// (variance_uncertainty.hpp); 0 when they are taken as known.
  double log_variance_sd = 0;
};

/// A family is fitted in two stages. First its variance components by REML with every identified
/// slope and regime effect fixed (a flat prior); those estimates, from every family, give the priors
/// of their kinds (EffectPriors). Then the family is refactored with the levels of its formats fixed
/// and every slope and regime effect random, drawn from its kind's prior: an effect the data identify
/// is barely moved by it, one they do not (a format measured at one size, a regime an engine was
/// never measured in) takes the spread its kind shows elsewhere (empirical Bayes).
class FamilyFit {
 public:
  /// Fits the variance components by restricted maximum likelihood (REML: Patterson & Thompson 1971)
  /// over the family's cells: the best of bounded searches from `start` and from quasi-random starts
  /// over the components' range (bounded_search.hpp), so the optimum does not depend on `start`.
  /// Components the cells cannot identify keep `start`'s values.
  static std::optional<FamilyFit> fit(std::string family, const std::vector<Cell>& cells, const VarianceComponents& start,
                                      double card_floor);
  /// The same components, priors and precision of the components, conditioned on other cells (no new
  /// search): for the leave-one-session-out of `check`. Nullopt when no cell is left.
  [[nodiscard]] std::optional<FamilyFit> conditioned(const std::vector<Cell>& cells, double card_floor) const;
  /// What a stored model keeps of a family, to restore it without its cells.
  struct Stored {
    std::vector<Location> locations;  ///< with their cells' values
    VarianceComponents components;
    EffectPriors priors;
    std::vector<FreeComponent> free;
    std::vector<std::string> identified;
    std::optional<Matrix> theta_covariance;
    double objective = 0;  ///< −2 × the restricted log-likelihood at the fit
  };
  static std::optional<FamilyFit> restore(std::string family, Stored stored, double card_floor);
  [[nodiscard]] Stored stored() const;

  [[nodiscard]] const std::string& family() const { return family_; }
  [[nodiscard]] const VarianceComponents& components() const { return components_; }
  VarianceComponents& components() { return components_; }
  [[nodiscard]] const Design& design() const { return design_; }
  [[nodiscard]] const std::vector<Location>& locations() const { return *locations_; }
  /// The locations of one key (engine and format), in the order of locations(): a question reads its
  /// format's places, not every format's.
  [[nodiscard]] const std::vector<const Location*>& places_of(const std::string& key) const;
  [[nodiscard]] double restricted_log_likelihood() const { return -0.5 * objective_; }
  /// The identified estimates of the slope and regime effects (first stage), for the priors.
  [[nodiscard]] std::vector<EffectEstimate> estimates() const;
  /// The second stage: slope and regime effects drawn from `priors`, with `components`. False when
  /// the covariance does not factor.
  bool finalize(const EffectPriors& priors, const VarianceComponents& components);
  /// The latent mean at `p`; nullopt when the family has no level for its key (never measured) or a
  /// prior the point needs is missing (no family identified that kind of effect). Second stage only.
  [[nodiscard]] std::optional<LatentPrediction> predict(const ModelPoint& p) const;
  /// The latent mean alone (no variances): O(places), for searches along a curve.
  [[nodiscard]] std::optional<double> predict_mean(const ModelPoint& p) const;
  /// Prepares the uncertainty of predictive variances (variance_uncertainty.hpp): the information matrix of
  /// the free components at the fit, and their gradient (variance_gradient.hpp). Call after finalize;
  /// `card_floor` as in fit.
  void prepare_uncertainty(double card_floor);
  /// The same with a given Σ_θ (a stored or conditioned model).
  void prepare_uncertainty(double card_floor, const std::optional<Matrix>& theta_covariance);
  /// ∂ ln(mean_var + card_var)/∂x_j at `p` for each free component j (log scale); empty without Σ_θ
  /// or where the family does not answer.
  [[nodiscard]] std::vector<double> log_variance_gradient(const ModelPoint& p) const;
  [[nodiscard]] const std::optional<Matrix>& theta_covariance() const { return theta_cov_; }
  [[nodiscard]] const std::vector<FreeComponent>& free_components() const { return free_; }
  /// The component groups this family's cells identify ("card", "shared", "format", "arch", "gpu", "batch").
  [[nodiscard]] const std::vector<std::string>& identified() const { return identified_; }
  /// The starts the fit screened, the ends it refined and how many of those ended at the optimum it
  /// kept (all 0 for a restored or conditioned model, which searched nothing).
  [[nodiscard]] int search_starts() const { return search_starts_; }
  [[nodiscard]] int search_refined() const { return search_refined_; }
  [[nodiscard]] int search_refined_at_best() const { return search_at_best_; }
  [[nodiscard]] const EffectPriors& priors() const { return priors_; }
  /// The session ids of some of this family's places merged in id order, each once: what an answer
  /// resting on those places counts and lists from. Kept per set of places (whatever the size asked,
  /// an answer rests on a few), so a new question between the same places merges nothing.
  [[nodiscard]] std::shared_ptr<const std::vector<std::string_view>> merged_sessions(const std::vector<const Location*>& places) const;

 private:
  bool factor();  // K, its Cholesky factor, β, α, Cov(β) from the locations and components
  void lay_out_places();  // table_ from the locations and the design's mean ln size
  // The point's prior terms (worked out once per point), its design row and its kernels at this fit's
  // length scales: what a prediction's parts share.
  struct PointRow {
    std::vector<double> x;
    std::vector<PriorTerm> terms;
    PlaceCovariance::Point point;
    PlaceCovariance::Kernels kernels;
  };
  [[nodiscard]] PointRow point_row(const ModelPoint& p) const;
  // k*: the point's covariance with every place under this fit's components.
  [[nodiscard]] std::vector<double> k_star(const PointRow& row) const;
  // What the posterior variance of a mean leaves for its gradient: L⁻¹k* and r = x* − X'K⁻¹k*.
  struct Solved {
    std::vector<double> z, r;
  };
  // The posterior variance of the mean at the point, given its k* under this fit's components.
  [[nodiscard]] double mean_variance(const ModelPoint& p, const PointRow& row, const std::vector<double>& k_star,
                                     Solved* solved = nullptr) const;
  // ∂ ln v/∂x_j, v = mean_var + card_var at the point, from what mean_variance solved.
  [[nodiscard]] std::vector<double> log_variance_gradient(const ModelPoint& p, const PointRow& row, const Solved& solved,
                                                          double v) const;
  [[nodiscard]] std::vector<PriorTerm> prior_terms(const ModelPoint& a) const;
  // The components' covariance of a and b plus that of the effects drawn from priors (a's terms).
  [[nodiscard]] double covariance(const ModelPoint& a, const std::vector<PriorTerm>& a_terms, const ModelPoint& b) const;
  [[nodiscard]] double prior_mean(const ModelPoint& p) const;
  [[nodiscard]] double center_of(const FixedEffect& effect) const;
  [[nodiscard]] double log_variance_sd(const ModelPoint& p, const PointRow& row, const LatentPrediction& at,
                                       const Solved& solved) const;
  [[nodiscard]] bool needs_missing_prior(const ModelPoint& p) const;
  [[nodiscard]] bool regime_measured_at_its_batch_only(const ModelPoint& p) const;
  // What stored() keeps, with other places: conditioned() on new cells without copying this fit's.
  [[nodiscard]] Stored stored_with(std::vector<Location> locations) const;

  std::string family_;
  // Shared by copies of the fit: where thousands of cards measured a place, its cells would be most of
  // what a copy costs.
  std::shared_ptr<const std::vector<Location>> locations_ = std::make_shared<const std::vector<Location>>();
  Design design_;
  std::shared_ptr<const PlaceCovariance> table_;  // the places laid out for k*, shared like locations_
  // places_of's index, made with table_ (pointers into *locations_, which copies share).
  std::shared_ptr<const std::map<std::string, std::vector<const Location*>, std::less<>>> places_by_key_;
  VarianceComponents components_;
  EffectPriors priors_;
  bool second_stage_ = false;
  std::vector<std::string> identified_;
  double objective_ = 0;
  int search_starts_ = 0, search_refined_ = 0, search_at_best_ = 0;
  Design first_design_;                  // the first stage's design (its REML and information)
  std::vector<FreeComponent> free_;      // the components the cells identify
  std::optional<Matrix> theta_cov_;      // Σ_θ over free_ (log scale)
  std::shared_ptr<const VarianceGradient> gradient_;  // with Σ_θ: the predictive variance's gradient
  util::KeptAnswers<std::shared_ptr<const std::vector<std::string_view>>> merged_sessions_;
  PackedLowerFactor factor_;  // L of K, packed for the substitutions of each prediction
  Matrix k_inverse_x_, beta_cov_;
  std::vector<double> beta_, alpha_;
};

}  // namespace ecocompute::decide
