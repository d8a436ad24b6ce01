// The quality probe: perplexity of a baseline and of candidate precisions, and their KL divergence and
// top-1 agreement against the baseline on exactly the same tokens, in one pass with one window of logits.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "engine/engine.hpp"
#include "quality/corpus.hpp"
#include "quality/quality_result.hpp"
#include "util/result.hpp"

namespace ecocompute::quality {

/// How far the probe has got: `window` of `windows` has been scored on every engine.
struct ProbeProgress {
  std::int32_t window = 0;
  std::int32_t windows = 0;
};

/// Hooks a front end may set; both are optional.
struct ProbeOptions {
  /// Called after each window has been scored on the baseline and every candidate.
  std::function<void(const ProbeProgress&)> on_progress;
  /// Polled before each window; returning true stops the probe with a `cancelled` error.
  std::function<bool()> is_cancelled;
};

/// Scores `corpus` with `baseline` and each of `candidates` (the same weights at other precisions).
///
/// The corpus is tokenized once by the baseline (without BOS; the policy adds BOS per window) and cut by
/// CorpusWindows. Window by window, the baseline is evaluated and its logits for the scored positions
/// are kept in memory (scored tokens × n_vocab floats, at most seq_len − 1 rows); then each candidate
/// evaluates the same tokens and is compared position by position: NLL, KL(baseline ‖ candidate), and
/// whether its argmax equals the baseline's. No logits are written to disk.
///
/// Returns one QualityResult per engine: the baseline's first (kld, kld_p99 and top1_agreement_pct
/// absent, delta_ppl_pct 0 ± 0), then the candidates' in the order given. Every uncertainty is a standard
/// error over the scored tokens, paired where it compares with the baseline: ΔPPL % from the per-token NLL
/// differences (delta method: SE = 100 · (PPL/PPL_base) · SE(mean ΔNLL)), PPL's from its NLL (SE = PPL ·
/// SE(mean NLL)). Calling it once per candidate gives the same numbers (the baseline is deterministic) at the
/// cost of re-evaluating the baseline.
///
/// All engines must be loaded and able to hold seq_len tokens. Fails, naming the engine and window,
/// when tokenization fails or differs between the baseline and a candidate, the policy is invalid, an
/// engine fails mid-probe, logits are missing, out of order, of another vocabulary size, or not finite,
/// or `options.is_cancelled` returns true. Not thread-safe: it drives the engines from the calling thread.
[[nodiscard]] Result<std::vector<QualityResult>> probe_quality(engine::Engine& baseline,
                                                               std::span<engine::Engine* const> candidates,
                                                               const Corpus& corpus,
                                                               const WindowPolicy& policy,
                                                               const ProbeOptions& options = {});

/// Scores `corpus` with one engine alone: probe_quality with no candidates, returning its one result.
[[nodiscard]] Result<QualityResult> probe_perplexity(engine::Engine& engine, const Corpus& corpus,
                                                     const WindowPolicy& policy,
                                                     const ProbeOptions& options = {});

}  // namespace ecocompute::quality
