// Log-softmax arithmetic on one position's logits: log-sum-exp, argmax, NLL and KL divergence.
#pragma once

#include <span>

#include "engine/engine.hpp"
#include "util/result.hpp"

namespace ecocompute::quality {

/// What the scores of one position need from its logits z: log Σ_v exp(z_v) and the most likely token.
struct LogitSummary {
  double log_sum_exp = 0.0;
  engine::Token argmax = 0;  ///< the lowest id among equal maxima
};

/// Returns log Σ exp(z) computed stably in double as max + log Σ exp(z − max), and the argmax.
/// Fails with invalid_input when `logits` is empty or holds a NaN or infinite value.
[[nodiscard]] Result<LogitSummary> summarize_logits(std::span<const float> logits);

/// Returns the negative log-likelihood of `target` in nats: log Σ exp(z) − z_target.
[[nodiscard]] double negative_log_likelihood(std::span<const float> logits, double log_sum_exp,
                                             engine::Token target);

/// Returns KL(P ‖ Q) = Σ_v p_v (log p_v − log q_v) in nats, where log p_v = p_logits_v − p_log_sum_exp and
/// likewise for Q. Both spans have the same length. Identical inputs give exactly 0.
[[nodiscard]] double kl_divergence(std::span<const float> p_logits, double p_log_sum_exp,
                                   std::span<const float> q_logits, double q_log_sum_exp);

}  // namespace ecocompute::quality
