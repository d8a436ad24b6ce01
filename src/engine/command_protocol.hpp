// The command protocol's lines (docs/command-protocol.md): parsing what a measured program sends and
// formatting what the tool sends it. One line is `verb [word …] [key=value …]`, words and values
// without spaces, at most kMaxProtocolLine bytes of printable ASCII.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace ecocompute::engine {

/// One line, split: the verb, its plain words in order, its key=value fields, and the raw text after
/// the verb (an `error` line's message).
struct ProtocolLine {
  std::string verb;
  std::vector<std::string> words;
  std::map<std::string, std::string, std::less<>> fields;
  std::string rest;
};

/// Splits a line. Errors (invalid_input, naming the line): empty, too long, a byte that is not
/// printable ASCII, a verb that is not lowercase letters, a field with an empty key or value, a key
/// given twice. An `error` line keeps its message whole in `rest` and is not split further.
[[nodiscard]] Result<ProtocolLine> parse_protocol_line(std::string_view line);

/// Parses a count field: decimal digits only (no sign), at most 2^53. Errors name the key and value.
[[nodiscard]] Result<std::int64_t> parse_count_field(const ProtocolLine& line, std::string_view key);

/// What a program declares in its `hello` line, driven mode.
struct Hello {
  std::string engine;        ///< required: "transformers", "vllm" …
  std::string version;       ///< the engine's version; "" when not given
  std::string commit;
  std::string precision;     ///< what the program says it runs ("NF4", "fp16" …)
  std::string model;         ///< model name or path
  std::uint64_t params = 0;  ///< parameter count, 0 when not given
  std::string device;        ///< "cuda:0", "cpu" …
  std::string backend;       ///< kernel path ("CUDA", "CPU" …)
  std::string architecture;
  std::string weights = "real";  ///< "real", "synthetic" or "trained-fixture"
  std::string model_sha256;      ///< 64 hex digits, when the program can say what it loaded
};

/// Parses a `hello` line. Errors: another verb (an `error <message>` line gives an engine error with
/// the program's message), no engine=, a bad params=, weights= or model_sha256=.
[[nodiscard]] Result<Hello> parse_hello(std::string_view line);

/// A `done` reply to a prefill or decode request.
struct Done {
  std::int64_t tokens = 0;
  std::optional<double> seconds;  ///< the program's own timing, when it gives one
};

/// Parses the reply to a request for `expected_tokens`: `done tokens=<n> [seconds=<s>]`. Errors: an
/// `error <message>` reply (engine, the message); any other line, a missing or malformed tokens=, or
/// tokens ≠ expected_tokens (invalid_input, naming both counts).
[[nodiscard]] Result<Done> parse_done(std::string_view line, std::int64_t expected_tokens);

/// A marker of marked mode: `begin <label>` or `end <label> [tokens=<n>]`.
struct Marker {
  enum class Kind { begin, end };
  Kind kind = Kind::begin;
  std::string label;
  std::optional<std::int64_t> tokens;
};

/// Parses a marker. Errors: another verb, no label or more than one, tokens= on begin, a bad count.
[[nodiscard]] Result<Marker> parse_marker(std::string_view line);

/// Returns "prefill <n>", "decode <n>" and "quit": the driven-mode requests.
[[nodiscard]] std::string prefill_request(std::int64_t n_prompt_tokens);
[[nodiscard]] std::string decode_request(std::int64_t n_tokens);
inline constexpr std::string_view kQuitRequest = "quit";

}  // namespace ecocompute::engine
