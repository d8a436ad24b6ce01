// One outcome of the decision model (the log energy ratio of a format against F16, or the log F16
// energy): one fit per engine family, the variance components a family cannot identify taken from
// the families that do, and the priors of effects no family's data identify for a question.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "decide/family_fit.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::decide {

/// The variance of the between-card term is never taken below this: 0.5 % on the energy scale, the
/// edge error a measurement window is held to (defaults::max_edge_error_pct), below which two
/// sessions cannot be told apart by the instrument.
double card_variance_floor();

/// Components no family identifies: a question that needs them is not answered.
enum class Unmeasured { architecture_spread, gpu_spread, batch };

class OutcomeModel {
 public:
  /// Fits every engine family of `cells`; `warm` (a previous fit) starts each family's search.
  static OutcomeModel fit(const std::vector<Cell>& cells, const OutcomeModel* warm = nullptr);
  /// The same components conditioned on `cells` (no search).
  [[nodiscard]] OutcomeModel conditioned_on(const std::vector<Cell>& cells) const;
  /// The same components conditioned on every kept cell but one session's (no search).
  [[nodiscard]] OutcomeModel without_session(const std::string& session_id) const;

  /// The latent mean at `p` and its variances; nullopt when its engine family has no level for the key.
  [[nodiscard]] std::optional<LatentPrediction> predict(const ModelPoint& p) const;
  [[nodiscard]] std::optional<double> predict_mean(const ModelPoint& p) const;
  [[nodiscard]] const FamilyFit* family_of(const std::string& engine) const;
  [[nodiscard]] bool measured(Unmeasured what) const { return !unmeasured_.contains(what); }
  [[nodiscard]] const std::map<std::string, FamilyFit>& families() const { return families_; }
  [[nodiscard]] const EffectPriors& priors() const { return priors_; }

  /// A model restored from its JSON (to_json), without the cells it was fitted to.
  static Result<OutcomeModel> from_json(const Json& j);
  friend void to_json(Json& j, const OutcomeModel& m);

 private:
  void share_components();  // donors for what a family cannot identify; then priors
  std::map<std::string, FamilyFit> families_;
  EffectPriors priors_;
  std::set<Unmeasured> unmeasured_;
};

}  // namespace ecocompute::decide
