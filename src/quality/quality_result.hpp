// QualityResult: what the quality probe measured for one precision against the baseline.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace ecocompute::quality {

/// The text scored, recorded so a reader can fetch exactly the same bytes.
struct CorpusInfo {
  std::string name;
  std::uint64_t bytes = 0;
  std::string sha256;
};

/// How the text was cut into windows and scored.
struct WindowPolicy {
  std::int32_t seq_len = 512;    ///< tokens per window, BOS included when add_bos
  std::int32_t stride = 256;     ///< first-token offset between windows; tokens before seq_len − stride are context only
  bool add_bos = true;           ///< BOS prepended to every window
  std::int64_t max_tokens = 32768;  ///< corpus tokens kept (the stream's head); 0: the whole corpus
};

/// A value with a standard error (paired over the scored tokens).
struct Estimate {
  double value = 0.0;
  double standard_error = 0.0;
};

/// Perplexity of one precision, and its divergence from the baseline on exactly the same tokens.
struct QualityResult {
  std::string precision;         ///< GGUF type name ("Q4_K_M")
  std::string baseline;          ///< GGUF type of the baseline ("F16")
  CorpusInfo corpus;
  WindowPolicy policy;
  std::int64_t tokens_evaluated = 0;
  std::int32_t windows = 0;

  double mean_nll = 0.0;         ///< natural log, per scored token, full-precision sum / count
  Estimate perplexity;           ///< exp(mean_nll)
  double baseline_mean_nll = 0.0;
  Estimate baseline_perplexity;
  Estimate delta_ppl_pct;        ///< (PPL − PPL_base) / PPL_base × 100, uncertainty from the paired per-token NLL differences
  std::optional<Estimate> kld;   ///< mean KL(base ‖ candidate) per token (nats); absent for the baseline itself
  std::optional<double> kld_p99; ///< 99th percentile of per-token KLD
  std::optional<Estimate> top1_agreement_pct;  ///< % of tokens where argmax matches the baseline's
};

}  // namespace ecocompute::quality
