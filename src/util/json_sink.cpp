// The two sinks: nlohmann's document, and its dump(-1, ' ', false, replace) written without one.
#include "util/json_sink.hpp"

#include <nlohmann/detail/conversions/to_chars.hpp>

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>

namespace ecocompute {
namespace {

/// Whether the bytes are UTF-8 as RFC 3629 has it (no overlong forms, no surrogates, nothing past
/// U+10FFFF): the set nlohmann's decoder accepts.
bool valid_utf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  auto continuation = [&](const unsigned char* at, unsigned char low = 0x80, unsigned char high = 0xBF) {
    return at < end && *at >= low && *at <= high;
  };
  while (p < end) {
    const unsigned char b = *p;
    if (b < 0x80) {
      ++p;
    } else if (b >= 0xC2 && b <= 0xDF) {
      if (!continuation(p + 1)) return false;
      p += 2;
    } else if (b >= 0xE0 && b <= 0xEF) {
      const unsigned char low = b == 0xE0 ? 0xA0 : 0x80;
      const unsigned char high = b == 0xED ? 0x9F : 0xBF;
      if (!continuation(p + 1, low, high) || !continuation(p + 2)) return false;
      p += 3;
    } else if (b >= 0xF0 && b <= 0xF4) {
      const unsigned char low = b == 0xF0 ? 0x90 : 0x80;
      const unsigned char high = b == 0xF4 ? 0x8F : 0xBF;
      if (!continuation(p + 1, low, high) || !continuation(p + 2) || !continuation(p + 3)) return false;
      p += 4;
    } else {
      return false;
    }
  }
  return true;
}

/// The escape nlohmann writes for a control byte, quote or backslash.
const char* escape_of(unsigned char b, std::array<char, 7>& buffer) {
  switch (b) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '\b': return "\\b";
    case '\t': return "\\t";
    case '\n': return "\\n";
    case '\f': return "\\f";
    case '\r': return "\\r";
    default: break;
  }
  constexpr char kHex[] = "0123456789abcdef";
  buffer = {'\\', 'u', '0', '0', kHex[b >> 4], kHex[b & 0xF], '\0'};
  return buffer.data();
}

// Whether any of the eight bytes at `at` is one of kStops' (a control byte, a quote, a backslash or a
// byte ≥ 0x80), eight at once: a byte below n sets its high bit in (x − n·0x01…) & ~x, and a byte equal
// to c is a zero byte of x ^ c·0x01…. A word may claim a stop it lacks only beside one it has, so
// a word answered "none" is copied whole and any other is read byte by byte.
bool any_stop(const char* at) {
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHighs = 0x8080808080808080ULL;
  std::uint64_t x;
  std::memcpy(&x, at, sizeof x);
  const auto zero_byte = [](std::uint64_t v) { return (v - kOnes) & ~v & kHighs; };
  const std::uint64_t control = (x - 0x20 * kOnes) & ~x & kHighs;
  return ((x & kHighs) | control | zero_byte(x ^ ('"' * kOnes)) | zero_byte(x ^ ('\\' * kOnes))) != 0;
}

}  // namespace

void append_json_string(std::string& out, std::string_view value) {
  // Bytes that cannot be copied as they are: control bytes, quote and backslash (escaped), and any
  // byte of a multi-byte sequence (copied once the whole text is known to be valid UTF-8).
  static constexpr auto kStops = [] {
    std::array<bool, 256> stops{};
    for (int b = 0; b < 0x20; ++b) stops[b] = true;
    for (int b = 0x80; b < 0x100; ++b) stops[b] = true;
    stops['"'] = stops['\\'] = true;
    return stops;
  }();
  const std::size_t mark = out.size();
  out += '"';
  bool checked = false;
  std::size_t run = 0;  // start of the bytes not yet copied
  std::array<char, 7> buffer;
  for (std::size_t i = 0; i < value.size(); ++i) {
    if (i % 8 == 0 && i + 8 <= value.size() && !any_stop(value.data() + i)) {
      i += 7;
      continue;
    }
    const auto b = static_cast<unsigned char>(value[i]);
    if (!kStops[b]) continue;
    if (b >= 0x80) {
      // Invalid bytes are rare (the server refuses them in questions): nlohmann's replacement rules decide them.
      if (!checked && !valid_utf8(value.substr(i))) {
        out.resize(mark);
        out += Json(std::string(value)).dump(-1, ' ', false, Json::error_handler_t::replace);
        return;
      }
      checked = true;
      continue;
    }
    out.append(value.substr(run, i - run));
    out += escape_of(b, buffer);
    run = i + 1;
  }
  out.append(value.substr(run));
  out += '"';
}

void JsonSink::value(const std::vector<std::string>& texts) {
  begin_array();
  for (const std::string& t : texts) text(t);
  end_array();
}

void JsonSink::text_or_null(const std::string& v) {
  if (v.empty()) {
    null();
  } else {
    text(v);
  }
}

Json& JsonTreeSink::slot() {
  if (open_.empty()) return root_;
  Json& container = *open_.back();
  if (container.is_object()) return container[key_];
  container.push_back(nullptr);
  return container.back();
}

void JsonTreeSink::begin_object() {
  Json& s = slot();
  s = Json::object();
  open_.push_back(&s);
}
void JsonTreeSink::begin_array() {
  Json& s = slot();
  s = Json::array();
  open_.push_back(&s);
}
void JsonTreeSink::end_object() { open_.pop_back(); }
void JsonTreeSink::end_array() { open_.pop_back(); }
void JsonTreeSink::key(std::string_view name) { key_.assign(name); }
void JsonTreeSink::null() { slot() = nullptr; }
void JsonTreeSink::boolean(bool value) { slot() = value; }
void JsonTreeSink::integer(std::int64_t value) { slot() = value; }
void JsonTreeSink::unsigned_integer(std::uint64_t value) { slot() = value; }
void JsonTreeSink::number(double value) { slot() = value; }
void JsonTreeSink::text(std::string_view value) { slot() = std::string(value); }
void JsonTreeSink::json(const Json& value) { slot() = value; }

void JsonTextSink::before_value() {
  if (depth_ == 0) return;
  Level& level = levels_[depth_ - 1];
  if (level.object) {
    if (!level.keyed) throw std::logic_error("JSON writer: a value in an object without its key");
    level.keyed = false;
    return;
  }
  if (!level.empty) out_ += ',';
  level.empty = false;
}

void JsonTextSink::open(bool object, char bracket) {
  before_value();
  out_ += bracket;
  if (levels_.size() == depth_) levels_.emplace_back();
  Level& level = levels_[depth_++];
  level.object = object;
  level.empty = true;
  level.keyed = false;
}

void JsonTextSink::close(bool object, char bracket) {
  if (depth_ == 0 || levels_[depth_ - 1].object != object || levels_[depth_ - 1].keyed) {
    throw std::logic_error(std::string("JSON writer: '") + bracket + "' closes nothing open of its kind");
  }
  --depth_;
  out_ += bracket;
}

void JsonTextSink::begin_object() { open(true, '{'); }
void JsonTextSink::end_object() { close(true, '}'); }
void JsonTextSink::begin_array() { open(false, '['); }
void JsonTextSink::end_array() { close(false, ']'); }

void JsonTextSink::key(std::string_view name) {
  if (depth_ == 0 || !levels_[depth_ - 1].object || levels_[depth_ - 1].keyed) {
    throw std::logic_error("JSON writer: key '" + std::string(name) + "' where no key belongs");
  }
  Level& level = levels_[depth_ - 1];
  if (!level.empty) {
    if (name <= std::string_view(level.last_key)) {
      throw std::logic_error("JSON writer: key '" + std::string(name) + "' after '" + level.last_key +
                             "' (an object's keys go in byte order, as the document keeps them)");
    }
    out_ += ',';
  }
  level.empty = false;
  level.keyed = true;
  level.last_key.assign(name);
  append_json_string(out_, name);
  out_ += ':';
}

void JsonTextSink::null() {
  before_value();
  out_ += "null";
}

void JsonTextSink::boolean(bool value) {
  before_value();
  out_ += value ? "true" : "false";
}

void JsonTextSink::integer(std::int64_t value) {
  before_value();
  std::array<char, 24> buffer{};
  out_.append(buffer.data(), std::to_chars(buffer.data(), buffer.data() + buffer.size(), value).ptr);
}

void JsonTextSink::unsigned_integer(std::uint64_t value) {
  before_value();
  std::array<char, 24> buffer{};
  out_.append(buffer.data(), std::to_chars(buffer.data(), buffer.data() + buffer.size(), value).ptr);
}

void JsonTextSink::number(double value) {
  before_value();
  if (!std::isfinite(value)) {
    out_ += "null";
    return;
  }
  // nlohmann's own shortest round-trip digits and layout (what its serializer calls for a double).
  std::array<char, 64> buffer{};
  out_.append(buffer.data(), nlohmann::detail::to_chars(buffer.data(), buffer.data() + buffer.size(), value));
}

void JsonTextSink::text(std::string_view value) {
  before_value();
  append_json_string(out_, value);
}

void JsonTextSink::json(const Json& value) {
  before_value();
  out_ += value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace ecocompute
