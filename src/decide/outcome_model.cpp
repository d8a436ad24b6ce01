// One outcome of the decision model across engine families (see outcome_model.hpp).
#include "decide/outcome_model.hpp"

#include <algorithm>
#include <cmath>

#include "decide/batch_regime.hpp"
#include "util/defaults.hpp"

namespace ecocompute::decide {
namespace {

std::map<std::string, std::vector<Cell>> by_family(const std::vector<Cell>& cells) {
  std::map<std::string, std::vector<Cell>> out;
  for (const Cell& c : cells) out[engine_family(c.place.engine)].push_back(c);
  return out;
}

bool identifies(const FamilyFit& f, const std::string& group) {
  return std::find(f.identified().begin(), f.identified().end(), group) != f.identified().end();
}

// The donors' mean of one component (geometric for variances and scales), or nullopt when no
// family identifies its group.
std::optional<double> donor_value(const std::map<std::string, FamilyFit>& families, const std::string& group,
                                  double VarianceComponents::*field) {
  double log_sum = 0;
  int n = 0;
  for (const auto& [name, f] : families) {
    if (!identifies(f, group)) continue;
    log_sum += std::log(std::max(f.components().*field, 1e-12));
    ++n;
  }
  if (n == 0) return std::nullopt;
  return std::exp(log_sum / n);
}

}  // namespace

double card_variance_floor() {
  const double floor = std::log1p(defaults::max_edge_error_pct / 100.0);
  return floor * floor;
}

OutcomeModel OutcomeModel::fit(const std::vector<Cell>& cells, const OutcomeModel* warm) {
  OutcomeModel m;
  for (const auto& [family, family_cells] : by_family(cells)) {
    VarianceComponents start;
    if (warm != nullptr) {
      if (const auto it = warm->families_.find(family); it != warm->families_.end()) start = it->second.components();
    }
    if (auto fitted = FamilyFit::fit(family, family_cells, start, card_variance_floor())) m.families_.emplace(family, std::move(*fitted));
  }
  m.share_components();
  return m;
}

OutcomeModel OutcomeModel::conditioned_on(const std::vector<Cell>& cells) const {
  OutcomeModel m;
  m.priors_ = priors_;
  m.unmeasured_ = unmeasured_;
  for (const auto& [family, family_cells] : by_family(cells)) {
    const auto it = families_.find(family);
    if (it == families_.end()) continue;
    if (auto f = it->second.conditioned(family_cells, card_variance_floor())) m.families_.emplace(family, std::move(*f));
  }
  return m;
}

OutcomeModel OutcomeModel::without_session(const std::string& session_id) const {
  std::vector<Cell> cells;
  for (const auto& [name, f] : families_) {
    for (const Location& l : f.locations()) {
      for (std::size_t i = 0; i < l.values.size(); ++i) {
        if (l.sessions[i] == session_id) continue;
        Cell c;
        c.place = l.place;
        c.session_id = l.sessions[i];
        c.value = l.values[i];
        c.within_var = l.within[i];
        cells.push_back(std::move(c));
      }
    }
  }
  return conditioned_on(cells);
}

void OutcomeModel::share_components() {
  struct Shared {
    const char* group;
    double VarianceComponents::*field;
    std::optional<Unmeasured> unmeasured;
  };
  const Shared shared[] = {{"shared", &VarianceComponents::shared, std::nullopt},
                           {"format", &VarianceComponents::format, std::nullopt},
                           {"format", &VarianceComponents::size_scale, std::nullopt},
                           {"arch", &VarianceComponents::arch, Unmeasured::architecture_spread},
                           {"arch", &VarianceComponents::arch_slope, Unmeasured::architecture_spread},
                           {"gpu", &VarianceComponents::gpu, Unmeasured::gpu_spread},
                           {"batch", &VarianceComponents::batch_format, Unmeasured::batch},
                           {"batch", &VarianceComponents::batch_shared, Unmeasured::batch},
                           {"batch", &VarianceComponents::batch_scale, Unmeasured::batch}};
  std::map<std::string, VarianceComponents> final_components;
  std::optional<double> widest_card;
  for (const auto& [name, f] : families_) {
    if (identifies(f, "card")) widest_card = std::max(widest_card.value_or(0.0), f.components().card_pooled);
  }
  for (const auto& [name, f] : families_) {
    VarianceComponents c = f.components();
    for (const Shared& s : shared) {
      if (identifies(f, s.group)) continue;
      const auto donor = donor_value(families_, s.group, s.field);
      // Nobody measured it: no spread for a scale of 1, none for a variance (questions that need it are refused).
      c.*s.field = donor.value_or(s.field == &VarianceComponents::size_scale || s.field == &VarianceComponents::batch_scale ? 1.0 : 0.0);
      if (!donor && s.unmeasured) unmeasured_.insert(*s.unmeasured);
    }
    // An engine no two sessions measured at one place: the widest between-card spread of the others.
    if (!identifies(f, "card")) c.card_pooled = std::max(widest_card.value_or(card_variance_floor()), card_variance_floor());
    final_components[name] = c;
  }
  std::vector<EffectEstimate> estimates;
  for (const auto& [name, f] : families_) {
    const auto e = f.estimates();
    estimates.insert(estimates.end(), e.begin(), e.end());
  }
  priors_ = make_priors(estimates);
  for (auto it = families_.begin(); it != families_.end();) {
    if (!it->second.finalize(priors_, final_components[it->first])) {
      it = families_.erase(it);
      continue;
    }
    it->second.prepare_uncertainty(card_variance_floor());
    ++it;
  }
}

const FamilyFit* OutcomeModel::family_of(const std::string& engine) const {
  const auto it = families_.find(engine_family(engine));
  return it != families_.end() ? &it->second : nullptr;
}

std::optional<LatentPrediction> OutcomeModel::predict(const ModelPoint& p) const {
  const FamilyFit* f = family_of(p.engine);
  if (f == nullptr) return std::nullopt;
  return f->predict(p);
}

}  // namespace ecocompute::decide

namespace ecocompute::decide {

std::optional<double> OutcomeModel::predict_mean(const ModelPoint& p) const {
  const FamilyFit* f = family_of(p.engine);
  if (f == nullptr) return std::nullopt;
  return f->predict_mean(p);
}

}  // namespace ecocompute::decide
