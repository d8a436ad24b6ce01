// Parsing and formatting the command protocol's lines.
#include "engine/command_protocol.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "util/child_process.hpp"

namespace ecocompute::engine {
namespace {

constexpr std::int64_t kMaxCount = std::int64_t{1} << 53;

// A line quoted in an error message: cut, so one bad line cannot flood the log.
std::string quoted_excerpt(std::string_view line) {
  constexpr std::size_t kShown = 80;
  std::string out;
  for (char c : line.substr(0, kShown)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return "'" + out + (line.size() > kShown ? "…'" : "'");
}

Error bad_line(std::string_view line, std::string_view why) {
  return Error{ErrorCode::invalid_input, fmt::format("the program sent {}: {}", quoted_excerpt(line), why)};
}

std::vector<std::string_view> split_spaces(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == ' ') ++i;
    const std::size_t start = i;
    while (i < text.size() && text[i] != ' ') ++i;
    if (i > start) out.push_back(text.substr(start, i - start));
  }
  return out;
}

bool is_key(std::string_view key) {
  if (key.empty() || !((key[0] >= 'a' && key[0] <= 'z') || key[0] == '_')) return false;
  return std::all_of(key.begin(), key.end(),
                     [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

// An `error <message>` line as the engine error it reports.
Error program_error(const ProtocolLine& line) {
  return Error{ErrorCode::engine,
               "the program reported an error: " + (line.rest.empty() ? std::string("(no message)") : line.rest)};
}

}  // namespace

Result<ProtocolLine> parse_protocol_line(std::string_view line) {
  if (line.empty()) return bad_line(line, "an empty line");
  if (line.size() > kMaxProtocolLine) {
    return bad_line(line, fmt::format("a line of {} bytes (at most {})", line.size(), kMaxProtocolLine));
  }
  for (char c : line) {
    if (c < 0x20 || c >= 0x7f) return bad_line(line, "a byte that is not printable ASCII");
  }
  ProtocolLine out;
  const std::size_t verb_end = std::min(line.find(' '), line.size());
  out.verb = std::string(line.substr(0, verb_end));
  if (out.verb.empty() || !std::all_of(out.verb.begin(), out.verb.end(), [](char c) { return c >= 'a' && c <= 'z'; })) {
    return bad_line(line, "the verb must be lowercase letters");
  }
  const std::string_view rest = verb_end < line.size() ? line.substr(verb_end + 1) : std::string_view{};
  out.rest = std::string(rest);
  if (out.verb == "error") return out;
  for (std::string_view item : split_spaces(rest)) {
    const std::size_t equals = item.find('=');
    if (equals == std::string_view::npos) {
      out.words.emplace_back(item);
      continue;
    }
    const std::string_view key = item.substr(0, equals);
    const std::string_view value = item.substr(equals + 1);
    if (!is_key(key)) return bad_line(line, fmt::format("'{}' is not a field name (lowercase, digits, _)", key));
    if (value.empty()) return bad_line(line, fmt::format("field {}= has no value", key));
    if (!out.fields.emplace(std::string(key), std::string(value)).second) {
      return bad_line(line, fmt::format("field {}= is given twice", key));
    }
  }
  return out;
}

Result<std::int64_t> parse_count_field(const ProtocolLine& line, std::string_view key) {
  const auto it = line.fields.find(key);
  if (it == line.fields.end()) {
    return Error{ErrorCode::invalid_input, fmt::format("the program's '{}' line has no {}=", line.verb, key)};
  }
  const std::string& text = it->second;
  std::int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.front() < '0' || text.front() > '9' || ec != std::errc{} || end != text.data() + text.size() ||
      value > kMaxCount) {
    return Error{ErrorCode::invalid_input,
                 fmt::format("the program's {}={} is not a count (digits only, 0 … 2^53)", key, quoted_excerpt(text))};
  }
  return value;
}

Result<Hello> parse_hello(std::string_view text) {
  auto line = parse_protocol_line(text);
  if (!line) return line.error();
  if (line->verb == "error") return program_error(*line);
  if (line->verb != "hello") return bad_line(text, "expected 'hello engine=… …' first");
  Hello hello;
  auto field = [&](std::string_view key) -> std::string {
    const auto it = line->fields.find(key);
    return it != line->fields.end() ? it->second : std::string();
  };
  hello.engine = field("engine");
  if (hello.engine.empty()) return bad_line(text, "hello has no engine=");
  hello.version = field("version");
  hello.commit = field("commit");
  hello.precision = field("precision");
  hello.model = field("model");
  hello.device = field("device");
  hello.backend = field("backend");
  hello.architecture = field("architecture");
  if (line->fields.count("params") > 0) {
    auto params = parse_count_field(*line, "params");
    if (!params) return params.error();
    hello.params = static_cast<std::uint64_t>(*params);
  }
  if (const std::string weights = field("weights"); !weights.empty()) {
    if (weights != "real" && weights != "synthetic" && weights != "trained-fixture") {
      return bad_line(text, "weights= must be real, synthetic or trained-fixture");
    }
    hello.weights = weights;
  }
  hello.model_sha256 = field("model_sha256");
  if (!hello.model_sha256.empty() &&
      (hello.model_sha256.size() != 64 || !std::all_of(hello.model_sha256.begin(), hello.model_sha256.end(), [](char c) {
        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
      }))) {
    return bad_line(text, "model_sha256= must be 64 lowercase hex digits");
  }
  return hello;
}

Result<Done> parse_done(std::string_view text, std::int64_t expected_tokens) {
  auto line = parse_protocol_line(text);
  if (!line) return line.error();
  if (line->verb == "error") return program_error(*line);
  if (line->verb != "done") return bad_line(text, "expected 'done tokens=<n>' or 'error <message>'");
  auto tokens = parse_count_field(*line, "tokens");
  if (!tokens) return tokens.error();
  if (*tokens != expected_tokens) {
    return Error{ErrorCode::invalid_input,
                 fmt::format("the program replied tokens={} to a request for {} tokens", *tokens, expected_tokens)};
  }
  Done done;
  done.tokens = *tokens;
  if (const auto it = line->fields.find("seconds"); it != line->fields.end()) {
    double seconds = 0.0;
    const auto [end, ec] = std::from_chars(it->second.data(), it->second.data() + it->second.size(), seconds);
    if (ec != std::errc{} || end != it->second.data() + it->second.size() || !std::isfinite(seconds) || seconds < 0.0) {
      return bad_line(text, "seconds= is not a finite number ≥ 0");
    }
    done.seconds = seconds;
  }
  return done;
}

Result<Marker> parse_marker(std::string_view text) {
  auto line = parse_protocol_line(text);
  if (!line) return line.error();
  Marker marker;
  if (line->verb == "begin") {
    marker.kind = Marker::Kind::begin;
  } else if (line->verb == "end") {
    marker.kind = Marker::Kind::end;
  } else {
    return bad_line(text, "expected 'begin <label>' or 'end <label> tokens=<n>'");
  }
  if (line->words.size() != 1) return bad_line(text, "a marker names exactly one window label (no spaces)");
  marker.label = line->words.front();
  if (line->fields.count("tokens") > 0) {
    if (marker.kind == Marker::Kind::begin) return bad_line(text, "tokens= belongs on the end marker");
    auto tokens = parse_count_field(*line, "tokens");
    if (!tokens) return tokens.error();
    marker.tokens = *tokens;
  }
  return marker;
}

std::string prefill_request(std::int64_t n_prompt_tokens) { return fmt::format("prefill {}", n_prompt_tokens); }

std::string decode_request(std::int64_t n_tokens) { return fmt::format("decode {}", n_tokens); }

}  // namespace ecocompute::engine
