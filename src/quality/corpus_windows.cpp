// Window planning: the overlapping-context ("sliding window") perplexity scheme, each target scored once.
#include "quality/corpus_windows.hpp"

#include <algorithm>
#include <string>

namespace ecocompute::quality {

Result<CorpusWindows> CorpusWindows::plan(std::vector<engine::Token> stream, const WindowPolicy& policy,
                                          engine::Token bos) {
  if (policy.seq_len < 2) {
    return unexpected(ErrorCode::invalid_argument,
                      "quality window seq_len must be at least 2, got " + std::to_string(policy.seq_len));
  }
  // stride ≤ seq_len − 1 keeps at least one token of context before every scored target: the BOS or
  // the previous content token.
  if (policy.stride < 1 || policy.stride > policy.seq_len - 1) {
    return unexpected(ErrorCode::invalid_argument, "quality window stride must be in [1, seq_len - 1 = " +
                                                       std::to_string(policy.seq_len - 1) + "], got " +
                                                       std::to_string(policy.stride));
  }
  if (policy.max_tokens < 0) {
    return unexpected(ErrorCode::invalid_argument, "quality max_tokens must be 0 (no cap) or positive, got " +
                                                       std::to_string(policy.max_tokens));
  }
  if (policy.add_bos && bos < 0) {
    return unexpected(ErrorCode::invalid_argument,
                      "the quality policy prepends BOS but the model's vocabulary has no BOS token");
  }
  if (policy.max_tokens > 0 && static_cast<std::int64_t>(stream.size()) > policy.max_tokens) {
    stream.resize(static_cast<std::size_t>(policy.max_tokens));
  }

  const auto n = static_cast<std::int64_t>(stream.size());
  const std::int64_t content = policy.seq_len - (policy.add_bos ? 1 : 0);
  // Without BOS nothing predicts the stream's first token.
  std::int64_t scored_until = policy.add_bos ? 0 : 1;
  if (n <= scored_until) {
    return unexpected(ErrorCode::invalid_input,
                      "the quality text has " + std::to_string(n) + " token(s): too few to score");
  }

  std::vector<WindowSpan> spans;
  for (std::int64_t begin = 0;; begin += policy.stride) {
    const std::int64_t end = std::min(begin + content, n);
    spans.push_back(WindowSpan{begin, end, scored_until});
    scored_until = end;
    if (end == n) break;
  }
  return CorpusWindows(std::move(stream), policy, bos, std::move(spans));
}

std::int64_t CorpusWindows::scored_tokens() const noexcept {
  std::int64_t total = 0;
  for (const auto& span : spans_) total += span.scored();
  return total;
}

std::vector<engine::Token> CorpusWindows::tokens(const WindowSpan& span) const {
  std::vector<engine::Token> out;
  out.reserve(static_cast<std::size_t>(span.end - span.begin + 1));
  if (policy_.add_bos) out.push_back(bos_);
  out.insert(out.end(), stream_.begin() + span.begin, stream_.begin() + span.end);
  return out;
}

std::int64_t CorpusWindows::first_scored_position(const WindowSpan& span) const noexcept {
  return span.scored_begin - span.begin + (policy_.add_bos ? 1 : 0);
}

std::string describe(const WindowPolicy& policy) {
  const std::int32_t content = policy.seq_len - (policy.add_bos ? 1 : 0);
  std::string text = "windows of " + std::to_string(policy.seq_len) + " tokens";
  text += policy.add_bos ? " (BOS + " + std::to_string(content) + " text)" : " (no BOS)";
  text += ", stride " + std::to_string(policy.stride) + ": each later window scores its last " +
          std::to_string(policy.stride) + " tokens after " + std::to_string(content - policy.stride) +
          " of context; ";
  text += policy.max_tokens > 0 ? "first " + std::to_string(policy.max_tokens) + " text tokens" : "whole text";
  return text;
}

}  // namespace ecocompute::quality
