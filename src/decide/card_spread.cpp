// Between-card spread for compare (see card_spread.hpp).
#include "decide/card_spread.hpp"

#include <cmath>

#include "decide/model_point.hpp"

namespace ecocompute::decide {

std::optional<double> between_cards_pp(const Evidence& evidence, const std::string& arch, const std::string& engine,
                                       const std::string& precision, double delta_pct) {
  const FamilyFit* family = evidence.model->ratio.family_of(engine);
  if (family == nullptr || arch.empty()) return std::nullopt;
  const std::string key = model_key(engine, precision);
  if (family->places_of(key).empty()) return std::nullopt;
  // Two cards: each ln ratio ± τ, their difference ± √2 τ; carried to ΔE points at (100 + ΔE).
  const double tau = std::sqrt(family->components().card_var(key));
  return 1.96 * std::sqrt(2.0) * tau * (100 + delta_pct);
}

void add_between_card_spread(data::Comparison& c, const Evidence& evidence) {
  for (data::PairedRow& p : c.pairs) {
    if (!p.delta_a_pct || !p.difference_pp) continue;
    p.between_cards_pp = between_cards_pp(evidence, c.gpu_arch_a, c.engine_a, p.precision, *p.delta_a_pct);
    if (p.between_cards_pp) p.beyond_between_cards = std::abs(*p.difference_pp) > *p.between_cards_pp;
  }
}

}  // namespace ecocompute::decide
