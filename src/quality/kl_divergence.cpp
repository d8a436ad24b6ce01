// Log-softmax arithmetic in double from float logits, with compensated sums over the vocabulary.
#include "quality/kl_divergence.hpp"

#include <cmath>
#include <cstddef>
#include <string>

#include "quality/token_statistics.hpp"

namespace ecocompute::quality {

Result<LogitSummary> summarize_logits(std::span<const float> logits) {
  if (logits.empty()) return unexpected(ErrorCode::invalid_input, "empty logits");
  std::size_t best = 0;
  for (std::size_t v = 0; v < logits.size(); ++v) {
    if (!std::isfinite(logits[v])) {
      return unexpected(ErrorCode::invalid_input,
                        "non-finite logit " + std::to_string(logits[v]) + " for token " + std::to_string(v));
    }
    if (logits[v] > logits[best]) best = v;
  }
  // Subtracting the maximum keeps every exponent in (0, 1]: no overflow, and the largest term is exact.
  const double max = logits[best];
  CompensatedSum sum;
  for (float z : logits) sum.add(std::exp(static_cast<double>(z) - max));
  return LogitSummary{max + std::log(sum.value()), static_cast<engine::Token>(best)};
}

double negative_log_likelihood(std::span<const float> logits, double log_sum_exp, engine::Token target) {
  return log_sum_exp - static_cast<double>(logits[static_cast<std::size_t>(target)]);
}

double kl_divergence(std::span<const float> p_logits, double p_log_sum_exp, std::span<const float> q_logits,
                     double q_log_sum_exp) {
  // KL(P‖Q) = Σ_v p_v (log p_v − log q_v); log p_v = z_v − log Σ exp(z). The terms have both signs, so
  // the sum is compensated.
  CompensatedSum sum;
  for (std::size_t v = 0; v < p_logits.size(); ++v) {
    const double log_p = static_cast<double>(p_logits[v]) - p_log_sum_exp;
    const double log_q = static_cast<double>(q_logits[v]) - q_log_sum_exp;
    sum.add(std::exp(log_p) * (log_p - log_q));
  }
  return sum.value();
}

}  // namespace ecocompute::quality
