// CorpusWindows: a token stream cut into overlapping windows so that every token is scored exactly once.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/engine.hpp"
#include "quality/quality_result.hpp"
#include "util/result.hpp"

namespace ecocompute::quality {

/// One window over the token stream: the stream tokens [begin, end) are evaluated (after a BOS when the
/// policy adds one); the targets [scored_begin, end) are scored, the tokens before them are context only.
struct WindowSpan {
  std::int64_t begin = 0;
  std::int64_t end = 0;
  std::int64_t scored_begin = 0;

  [[nodiscard]] std::int64_t scored() const noexcept { return end - scored_begin; }
  bool operator==(const WindowSpan&) const = default;
};

/// The windows of a stream under a policy.
///
/// With content length L = seq_len − (add_bos ? 1 : 0), windows start every `stride` stream tokens and
/// hold up to L of them. The first window scores all its tokens (all but the first when there is no BOS,
/// as nothing predicts it); each later window scores only the tokens after the previous window's end, so
/// its first L − stride tokens are context, and the last window stops at the end of the stream.
/// Every scored target is scored exactly once, in stream order.
class CorpusWindows {
 public:
  /// Plans the windows of `stream` (cut to its first policy.max_tokens tokens when that is positive).
  /// Fails with invalid_argument when seq_len < 2, stride is outside [1, seq_len − 1], add_bos is set and
  /// `bos` < 0 (the model has no BOS) or max_tokens < 0, and with invalid_input when nothing would be
  /// scored (no token; one token without BOS).
  [[nodiscard]] static Result<CorpusWindows> plan(std::vector<engine::Token> stream,
                                                  const WindowPolicy& policy, engine::Token bos);

  [[nodiscard]] const std::vector<WindowSpan>& spans() const noexcept { return spans_; }
  [[nodiscard]] const WindowPolicy& policy() const noexcept { return policy_; }
  [[nodiscard]] std::span<const engine::Token> stream() const noexcept { return stream_; }
  /// Returns the number of scored targets over all windows.
  [[nodiscard]] std::int64_t scored_tokens() const noexcept;

  /// Returns the tokens to evaluate for `span`: BOS (when the policy adds one) then stream [begin, end).
  [[nodiscard]] std::vector<engine::Token> tokens(const WindowSpan& span) const;
  /// Returns the position, in tokens(span), of the first scored target; the logits that predict the
  /// target at position p are those of position p − 1.
  [[nodiscard]] std::int64_t first_scored_position(const WindowSpan& span) const noexcept;

 private:
  CorpusWindows(std::vector<engine::Token> stream, WindowPolicy policy, engine::Token bos,
                std::vector<WindowSpan> spans)
      : stream_(std::move(stream)), policy_(policy), bos_(bos), spans_(std::move(spans)) {}

  std::vector<engine::Token> stream_;
  WindowPolicy policy_;
  engine::Token bos_;
  std::vector<WindowSpan> spans_;
};

/// Returns the policy in words for logs and reports, e.g. "windows of 512 tokens (BOS + 511 text), stride 256:
/// each later window scores its last 256 tokens after 255 of context; first 32768 text tokens".
[[nodiscard]] std::string describe(const WindowPolicy& policy);

}  // namespace ecocompute::quality
