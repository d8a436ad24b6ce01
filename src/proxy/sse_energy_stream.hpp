// SseEnergyStream: passes a server-sent-event stream through byte for byte, counting the output
// chunks, and puts the request's energy into the last chunk before `data: [DONE]`: the server's own
// usage chunk when it sent one (held back only that chunk), else one added chunk with empty choices
// and a usage holding only the energy fields (as OpenAI's include_usage chunk is shaped).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "proxy/usage_energy.hpp"

namespace ecocompute::proxy {

class SseEnergyStream {
 public:
  /// `on_output`: an event carrying generated text passed. `finish`: the stream ended; returns the
  /// request's energy, given the usage the server reported (called once).
  SseEnergyStream(std::function<void()> on_output, std::function<AnswerEnergy(const ReportedUsage&)> finish);

  /// Takes the next bytes from the server; returns the bytes to send on now.
  std::string feed(std::string_view bytes);
  /// The server closed the stream; returns the bytes still to send (a held usage chunk, with energy).
  std::string end();
  /// Events larger than this are passed through unparsed (bounded memory per stream).
  static constexpr std::size_t kMaxEventBytes = 1u << 20;

 private:
  std::string take_event(std::string_view event);
  std::string finish_with_energy();
  std::string release_held();

  std::function<void()> on_output_;
  std::function<AnswerEnergy(const ReportedUsage&)> finish_;
  std::string pending_;                        // bytes of an event not yet complete
  std::optional<nlohmann::ordered_json> held_; // the server's usage chunk, held for the energy fields
  std::string held_raw_;
  std::string held_separator_;
  std::string last_data_;                      // the latest JSON event: id, object, model, created
  ReportedUsage usage_;
  bool finished_ = false;
  bool passthrough_ = false;                   // an oversized event: the rest passes unparsed
};

/// Returns whether an SSE chunk carries generated output (text, content, reasoning or a tool call).
bool carries_output(const nlohmann::ordered_json& chunk);
/// The same, read from the chunk's text without parsing it: a key followed by a non-empty string (or
/// tool-call array). Text that quotes such a key can count a chunk too many; the server's usage
/// rescales the count at the end, so only the timing of tokens could move.
bool scan_carries_output(std::string_view data);

}  // namespace ecocompute::proxy
