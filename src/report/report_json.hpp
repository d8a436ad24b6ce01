// What the energy.json and run.json converters share: a reader that is tolerant of absent fields and
// strict on types, a writer that writes nulls where a 1.2 schema requires the key, and the sections
// both files carry (paired ΔE, environment). Internal to report/.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "report/energy_report.hpp"
#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::report::detail {

/// Thrown by JsonReader on a field of the wrong type; read_document() turns it into an error, so it
/// never leaves report/.
struct ReadFailure {
  std::string message;
};

/// Reads the members of one JSON object. Absent and null members read as absent; a member of another
/// type fails with its dotted path ("workload.params_b: expected a number, got string").
class JsonReader {
 public:
  JsonReader(const OrderedJson& object, std::string path);

  [[nodiscard]] std::optional<std::string> text(const char* key) const;
  [[nodiscard]] std::string text_or(const char* key, std::string fallback) const;
  [[nodiscard]] std::optional<double> number(const char* key) const;
  /// A whole number: an integer or an integral float (draft 7: 2560.0 is an integer, 2560.5 is not).
  [[nodiscard]] std::optional<std::int64_t> integer(const char* key) const;
  [[nodiscard]] std::optional<std::uint64_t> unsigned_integer(const char* key) const;
  [[nodiscard]] std::optional<bool> boolean(const char* key) const;
  /// An array of strings; absent reads as empty.
  [[nodiscard]] std::vector<std::string> texts(const char* key) const;
  /// An array of integers; absent reads as empty.
  [[nodiscard]] std::vector<std::int64_t> integers(const char* key) const;
  /// An array of numbers; absent reads as empty.
  [[nodiscard]] std::vector<double> numbers(const char* key) const;
  [[nodiscard]] std::optional<JsonReader> object(const char* key) const;
  /// The member object, or an empty one when absent or null.
  [[nodiscard]] JsonReader object_or_empty(const char* key) const;
  /// An array of objects; absent or null reads as nothing.
  [[nodiscard]] std::optional<std::vector<JsonReader>> objects(const char* key) const;

  /// Returns the value of a parse of member `key`, or fails with the parse's message.
  template <typename T>
  [[nodiscard]] T parsed(const char* key, Result<T> value) const {
    if (!value) fail(key, value.error().message());
    return std::move(*value);
  }
  [[noreturn]] void fail(const char* key, const std::string& what) const;
  [[nodiscard]] const OrderedJson& json() const noexcept { return *object_; }

 private:
  [[nodiscard]] const OrderedJson* member(const char* key) const;
  /// `v` as a whole number (an integral float such as 2560.0 included); fails on a fraction.
  [[nodiscard]] std::int64_t whole_number(const char* key, const OrderedJson& v) const;
  [[noreturn]] void wrong_type(const char* key, const char* expected, const OrderedJson& value) const;
  [[nodiscard]] std::string where(const char* key) const;

  const OrderedJson* object_;
  std::string path_;
};

/// Runs `read` over a document that must be a JSON object; a ReadFailure becomes an invalid_input
/// error naming `source`.
template <typename T, typename Read>
Result<T> read_document(const OrderedJson& document, std::string_view source, Read read) {
  if (!document.is_object()) {
    return unexpected(ErrorCode::invalid_input, fmt::format("{}: not a JSON object", source));
  }
  try {
    return read(JsonReader(document, ""));
  } catch (const ReadFailure& failure) {
    return unexpected(ErrorCode::invalid_input, fmt::format("{}: {}", source, failure.message));
  }
}

/// Builds one JSON object. nullable() writes null for an absent value when the writer writes nulls
/// (a 1.2 section) and leaves the key out otherwise; optional() leaves it out either way.
class JsonWriter {
 public:
  explicit JsonWriter(bool nulls) : nulls_(nulls) {}

  template <typename T>
  void put(const char* key, T&& value) {
    object_[key] = OrderedJson(std::forward<T>(value));
  }
  void put(const char* key, std::string_view value) { object_[key] = std::string(value); }
  void put(const char* key, const char* value) { object_[key] = std::string(value); }
  template <typename T>
  void optional(const char* key, const std::optional<T>& value) {
    if (value) object_[key] = *value;
  }
  template <typename T>
  void nullable(const char* key, const std::optional<T>& value) {
    if (value) {
      object_[key] = *value;
    } else if (nulls_) {
      object_[key] = nullptr;
    }
  }
  [[nodiscard]] OrderedJson take() { return std::move(object_); }

 private:
  OrderedJson object_ = OrderedJson::object();
  bool nulls_;
};

[[nodiscard]] PairedDelta read_paired_delta(const JsonReader& reader);
[[nodiscard]] OrderedJson paired_delta_json(const PairedDelta& delta);
/// The environment section with every key (nulls included), fingerprint first.
[[nodiscard]] OrderedJson environment_json(const Environment& environment);

}  // namespace ecocompute::report::detail
