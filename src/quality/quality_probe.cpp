// The quality probe: baseline and candidates evaluated window by window, compared on the same tokens.
#include "quality/quality_probe.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <new>
#include <optional>
#include <string>

#include "quality/corpus_windows.hpp"
#include "quality/kl_divergence.hpp"
#include "quality/token_statistics.hpp"

namespace ecocompute::quality {
namespace {

using engine::Engine;
using engine::Token;

/// Scores one logits row: `row` counts the window's scored targets from 0.
using RowScorer = std::function<Result<void>(std::int64_t row, std::span<const float> logits)>;

std::string label(const Engine& e) {
  const auto& model = e.model();
  return model.gguf_type.empty() ? model.name : model.gguf_type;
}

/// The baseline's logits for one window's scored positions, as the engine gave them (no rounding), with
/// each row's log-sum-exp, argmax and NLL: one window is all the probe ever holds.
class ReferenceLogits {
 public:
  Result<void> prepare(std::int64_t rows, std::size_t n_vocab) {
    try {
      logits_.resize(static_cast<std::size_t>(rows) * n_vocab);
      summaries_.resize(static_cast<std::size_t>(rows));
      nll_.resize(static_cast<std::size_t>(rows));
    } catch (const std::bad_alloc&) {
      return unexpected(ErrorCode::unavailable, "not enough host memory for one window of logits (" +
                                                    std::to_string(rows) + " x " + std::to_string(n_vocab) +
                                                    " floats); lower the quality seq_len");
    }
    n_vocab_ = n_vocab;
    return {};
  }

  Result<void> store(std::int64_t row, std::span<const float> logits, Token target) {
    auto summary = summarize_logits(logits);
    if (!summary) return summary.error();
    std::copy(logits.begin(), logits.end(),
              logits_.begin() + static_cast<std::ptrdiff_t>(row) * static_cast<std::ptrdiff_t>(n_vocab_));
    summaries_[static_cast<std::size_t>(row)] = *summary;
    nll_[static_cast<std::size_t>(row)] = negative_log_likelihood(logits, summary->log_sum_exp, target);
    return {};
  }

  [[nodiscard]] std::span<const float> logits(std::int64_t row) const {
    return std::span<const float>(logits_).subspan(static_cast<std::size_t>(row) * n_vocab_, n_vocab_);
  }
  [[nodiscard]] const LogitSummary& summary(std::int64_t row) const {
    return summaries_[static_cast<std::size_t>(row)];
  }
  [[nodiscard]] double nll(std::int64_t row) const { return nll_[static_cast<std::size_t>(row)]; }

 private:
  std::size_t n_vocab_ = 0;
  std::vector<float> logits_;
  std::vector<LogitSummary> summaries_;
  std::vector<double> nll_;
};

/// Per-token series of one engine, in stream order of the scored targets.
struct TokenSeries {
  std::vector<double> nll;
  std::vector<double> nll_difference;  ///< NLL − the baseline's NLL on the same target
  std::vector<double> kld;             ///< KL(baseline ‖ this engine)
  std::vector<double> top1_pct;        ///< 100 where the argmax equals the baseline's, else 0
};

/// Evaluates `tokens` on `engine` and hands the logits that predict each scored target (positions
/// first_scored − 1 … size − 2) to `score`. Checks that every position arrives once, in order, with
/// `n_vocab` logits; sets `n_vocab` from the first logits seen when it is still 0.
Result<void> evaluate_window(Engine& engine, std::span<const Token> tokens, std::int64_t first_scored,
                             std::size_t& n_vocab, const RowScorer& score) {
  const auto size = static_cast<std::int64_t>(tokens.size());
  std::int64_t expected = 0;
  std::optional<Error> failure;
  const engine::LogitsSink sink = [&](std::int64_t position, std::span<const float> logits) {
    if (failure) return;
    if (position != expected) {
      failure = Error{ErrorCode::engine, "logits of position " + std::to_string(position) + " arrived when " +
                                             std::to_string(expected) + " was expected"};
      return;
    }
    ++expected;
    if (n_vocab == 0) n_vocab = logits.size();
    if (logits.size() != n_vocab || n_vocab == 0) {
      failure = Error{ErrorCode::engine, "logits of position " + std::to_string(position) + " have " +
                                             std::to_string(logits.size()) + " entries, expected " +
                                             std::to_string(n_vocab)};
      return;
    }
    if (position < first_scored - 1 || position > size - 2) return;  // context only, or nothing to predict
    if (auto scored = score(position - (first_scored - 1), logits); !scored) {
      failure = Error{scored.error().code(), "position " + std::to_string(position), scored.error()};
    }
  };
  if (auto evaluated = engine.evaluate(tokens, sink); !evaluated) {
    return Error{ErrorCode::engine, "evaluation failed", evaluated.error()};
  }
  if (failure) return *failure;
  if (expected != size) {
    return unexpected(ErrorCode::engine, "the engine returned logits for " + std::to_string(expected) +
                                             " of " + std::to_string(size) + " positions");
  }
  return {};
}

Result<void> check_target(Token target, std::size_t n_vocab) {
  if (target < 0 || static_cast<std::size_t>(target) >= n_vocab) {
    return unexpected(
        ErrorCode::invalid_input,
        "token id " + std::to_string(target) + " is outside the vocabulary of " + std::to_string(n_vocab));
  }
  return {};
}

/// Checks what every engine must share with the baseline before any evaluation.
Result<void> check_engine(const Engine& engine, const Engine& baseline, std::span<const Token> stream,
                          const Corpus& corpus, const WindowPolicy& policy) {
  const auto context = engine.describe().n_ctx;
  if (context > 0 && context < static_cast<std::uint32_t>(policy.seq_len)) {
    return unexpected(ErrorCode::invalid_argument, "engine " + label(engine) + " holds " +
                                                       std::to_string(context) +
                                                       " tokens of context, fewer than the quality seq_len " +
                                                       std::to_string(policy.seq_len));
  }
  if (&engine == &baseline) return {};
  auto tokens = engine.tokenize(corpus.text, false);
  if (!tokens) {
    return Error{tokens.error().code(),
                 "cannot tokenize quality text " + corpus.info.name + " with " + label(engine),
                 tokens.error()};
  }
  if (!std::equal(tokens->begin(), tokens->end(), stream.begin(), stream.end())) {
    return unexpected(ErrorCode::invalid_argument, label(engine) + " tokenizes quality text " +
                                                       corpus.info.name + " differently from the baseline " +
                                                       label(baseline) +
                                                       "; KL divergence needs the same tokens (same model?)");
  }
  if (policy.add_bos && engine.bos() != baseline.bos()) {
    return unexpected(ErrorCode::invalid_argument, label(engine) + " has BOS " +
                                                       std::to_string(engine.bos()) + ", the baseline " +
                                                       std::to_string(baseline.bos()));
  }
  return {};
}

/// Returns PPL = exp(mean NLL) with SE = PPL · SE(mean NLL) (delta method).
Estimate perplexity_of(const Estimate& nll) {
  const double ppl = std::exp(nll.value);
  return {ppl, ppl * nll.standard_error};
}

QualityResult make_result(const Engine& engine, const Engine& baseline, const Corpus& corpus,
                          const CorpusWindows& windows, const Estimate& baseline_nll,
                          const TokenSeries* series) {
  QualityResult result;
  result.precision = label(engine);
  result.baseline = label(baseline);
  result.corpus = corpus.info;
  result.policy = windows.policy();
  result.tokens_evaluated = windows.scored_tokens();
  result.windows = static_cast<std::int32_t>(windows.spans().size());
  result.baseline_mean_nll = baseline_nll.value;
  result.baseline_perplexity = perplexity_of(baseline_nll);
  if (series == nullptr) {
    result.mean_nll = baseline_nll.value;
    result.perplexity = result.baseline_perplexity;
    return result;
  }
  const Estimate nll = mean_estimate(series->nll);
  result.mean_nll = nll.value;
  result.perplexity = perplexity_of(nll);
  // PPL / PPL_base = exp(mean NLL − mean NLL_base), from the unrounded means; the paired SE comes from
  // the per-token differences: SE(ΔPPL %) = 100 · ratio · SE(mean ΔNLL).
  const double ratio = std::exp(nll.value - baseline_nll.value);
  const Estimate difference = mean_estimate(series->nll_difference);
  result.delta_ppl_pct = {100.0 * (ratio - 1.0), 100.0 * ratio * difference.standard_error};
  result.kld = mean_estimate(series->kld);
  result.kld_p99 = quantile(series->kld, 0.99);
  result.top1_agreement_pct = mean_estimate(series->top1_pct);
  return result;
}

Error in_window(const Error& cause, std::size_t window, std::size_t windows, const Engine& engine) {
  return Error{cause.code(),
               "quality probe, window " + std::to_string(window + 1) + "/" + std::to_string(windows) +
                   " on " + label(engine),
               cause};
}

}  // namespace

Result<std::vector<QualityResult>> probe_quality(Engine& baseline, std::span<Engine* const> candidates,
                                                 const Corpus& corpus, const WindowPolicy& policy,
                                                 const ProbeOptions& options) {
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    if (candidates[c] == nullptr) {
      return unexpected(ErrorCode::invalid_argument,
                        "quality probe candidate " + std::to_string(c) + " is null");
    }
  }
  auto stream = baseline.tokenize(corpus.text, false);
  if (!stream) {
    return Error{stream.error().code(),
                 "cannot tokenize quality text " + corpus.info.name + " with " + label(baseline),
                 stream.error()};
  }
  for (Engine* engine : candidates) {
    if (auto ok = check_engine(*engine, baseline, *stream, corpus, policy); !ok) return ok.error();
  }
  if (auto ok = check_engine(baseline, baseline, *stream, corpus, policy); !ok) return ok.error();
  auto planned = CorpusWindows::plan(std::move(*stream), policy, baseline.bos());
  if (!planned) return Error{planned.error().code(), "quality text " + corpus.info.name, planned.error()};
  const CorpusWindows& windows = *planned;

  const auto total = static_cast<std::size_t>(windows.scored_tokens());
  std::vector<double> baseline_nll;
  baseline_nll.reserve(total);
  std::vector<TokenSeries> series(candidates.size());
  for (auto& s : series) {
    s.nll.reserve(total);
    s.nll_difference.reserve(total);
    s.kld.reserve(total);
    s.top1_pct.reserve(total);
  }

  ReferenceLogits reference;
  std::size_t n_vocab = 0;
  const auto& spans = windows.spans();
  for (std::size_t w = 0; w < spans.size(); ++w) {
    if (options.is_cancelled && options.is_cancelled()) {
      return unexpected(ErrorCode::cancelled, "quality probe cancelled before window " +
                                                  std::to_string(w + 1) + "/" + std::to_string(spans.size()));
    }
    const std::vector<Token> tokens = windows.tokens(spans[w]);
    const std::int64_t first = windows.first_scored_position(spans[w]);
    const std::int64_t rows = spans[w].scored();
    const auto target = [&](std::int64_t row) { return tokens[static_cast<std::size_t>(first + row)]; };

    bool prepared = false;
    const RowScorer keep = [&](std::int64_t row, std::span<const float> logits) -> Result<void> {
      if (!prepared) {
        if (auto ok = reference.prepare(rows, n_vocab); !ok) return ok;
        prepared = true;
      }
      if (auto ok = check_target(target(row), n_vocab); !ok) return ok;
      if (auto ok = reference.store(row, logits, target(row)); !ok) return ok;
      baseline_nll.push_back(reference.nll(row));
      return {};
    };
    if (auto ok = evaluate_window(baseline, tokens, first, n_vocab, keep); !ok) {
      return in_window(ok.error(), w, spans.size(), baseline);
    }

    for (std::size_t c = 0; c < candidates.size(); ++c) {
      TokenSeries& s = series[c];
      const RowScorer compare = [&](std::int64_t row, std::span<const float> logits) -> Result<void> {
        auto summary = summarize_logits(logits);
        if (!summary) return summary.error();
        const double nll = negative_log_likelihood(logits, summary->log_sum_exp, target(row));
        s.nll.push_back(nll);
        s.nll_difference.push_back(nll - reference.nll(row));
        s.kld.push_back(kl_divergence(reference.logits(row), reference.summary(row).log_sum_exp, logits,
                                      summary->log_sum_exp));
        s.top1_pct.push_back(summary->argmax == reference.summary(row).argmax ? 100.0 : 0.0);
        return {};
      };
      if (auto ok = evaluate_window(*candidates[c], tokens, first, n_vocab, compare); !ok) {
        return in_window(ok.error(), w, spans.size(), *candidates[c]);
      }
    }
    if (options.on_progress) {
      options.on_progress(
          ProbeProgress{static_cast<std::int32_t>(w + 1), static_cast<std::int32_t>(spans.size())});
    }
  }

  const Estimate base = mean_estimate(baseline_nll);
  std::vector<QualityResult> results;
  results.reserve(candidates.size() + 1);
  results.push_back(make_result(baseline, baseline, corpus, windows, base, nullptr));
  for (std::size_t c = 0; c < candidates.size(); ++c) {
    results.push_back(make_result(*candidates[c], baseline, corpus, windows, base, &series[c]));
  }
  return results;
}

Result<QualityResult> probe_perplexity(Engine& engine, const Corpus& corpus, const WindowPolicy& policy,
                                       const ProbeOptions& options) {
  auto results = probe_quality(engine, {}, corpus, policy, options);
  if (!results) return results.error();
  return std::move(results->front());
}

}  // namespace ecocompute::quality
