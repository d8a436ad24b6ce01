// SseReader: the server-sent-events framing of a streamed completion, fed bytes as they arrive.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ecocompute::engine {

/// Splits a byte stream into SSE events and returns each event's data (the "data:" lines joined by
/// '\n'). Comment lines (":…") and the event/id/retry fields are skipped; any other line, or a line
/// longer than kMaxLineBytes, makes the stream malformed: feed() then returns nothing more and
/// error() says why. An OpenAI-compatible server sends only data lines, so a stray line means the
/// stream is not what we think it is, and its counts must not be trusted.
class SseReader {
 public:
  static constexpr std::size_t kMaxLineBytes = 4u << 20;

  /// Appends bytes and returns the data of every event they complete, in order.
  std::vector<std::string> feed(std::string_view bytes);
  /// Returns why the stream is malformed, or nothing.
  [[nodiscard]] const std::optional<std::string>& error() const noexcept { return error_; }
  /// Returns whether bytes are buffered that no blank line has ended yet (a cut-off event).
  [[nodiscard]] bool has_partial_event() const noexcept { return !line_.empty() || !data_.empty(); }

 private:
  void take_line(std::string_view line, std::vector<std::string>& out);

  std::string line_;
  std::string data_;
  bool has_data_ = false;
  bool last_was_cr_ = false;
  std::optional<std::string> error_;
};

}  // namespace ecocompute::engine
