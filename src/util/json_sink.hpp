// One way to write an answer as JSON, two places it can go: into nlohmann's document (JsonTreeSink, for
// callers that go on editing or embedding it) or straight into text (JsonTextSink, for the server, which
// only sends it). The text is byte for byte what the document's dump(-1, ' ', false, replace) gives, so
// an answer is written once and both forms agree; the text costs no node, key or string allocation.
#pragma once

#include <concepts>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/json.hpp"

namespace ecocompute {

/// Receives a JSON value as it is written. Objects take their keys in the document's own order (bytes
/// ascending, as nlohmann's std::map keeps them): the text sink refuses any other, so a writer that
/// would make the two forms differ fails at once.
class JsonSink {
 public:
  virtual ~JsonSink() = default;
  virtual void begin_object() = 0;
  virtual void end_object() = 0;
  virtual void begin_array() = 0;
  virtual void end_array() = 0;
  virtual void key(std::string_view name) = 0;
  virtual void null() = 0;
  virtual void boolean(bool value) = 0;
  virtual void integer(std::int64_t value) = 0;
  virtual void unsigned_integer(std::uint64_t value) = 0;
  virtual void number(double value) = 0;  ///< not finite: null, as nlohmann writes it
  virtual void text(std::string_view value) = 0;
  virtual void json(const Json& value) = 0;  ///< a value already in a document (a request as read)

  void value(std::nullptr_t) { null(); }
  void value(bool v) { boolean(v); }
  void value(double v) { number(v); }
  template <std::signed_integral T>
  void value(T v) { integer(v); }
  template <std::unsigned_integral T>
    requires(!std::same_as<T, bool>)
  void value(T v) { unsigned_integer(v); }
  void value(std::string_view v) { text(v); }
  void value(const char* v) { text(v); }
  void value(const std::string& v) { text(v); }
  void value(const Json& v) { json(v); }
  void value(const std::vector<std::string>& texts);
  template <typename T>
  void value(const std::optional<T>& v) {
    if (v) {
      value(*v);
    } else {
      null();
    }
  }
  /// The text, or null when it is empty (text_or_null of util/json.hpp).
  void text_or_null(const std::string& v);

  template <typename T>
  void field(std::string_view name, const T& v) {
    key(name);
    value(v);
  }
};

/// Builds the document into `root`.
class JsonTreeSink final : public JsonSink {
 public:
  explicit JsonTreeSink(Json& root) : root_(root) {}
  void begin_object() override;
  void end_object() override;
  void begin_array() override;
  void end_array() override;
  void key(std::string_view name) override;
  void null() override;
  void boolean(bool value) override;
  void integer(std::int64_t value) override;
  void unsigned_integer(std::uint64_t value) override;
  void number(double value) override;
  void text(std::string_view value) override;
  void json(const Json& value) override;

 private:
  Json& slot();  ///< where the next value goes
  Json& root_;
  std::vector<Json*> open_;
  std::string key_;
};

/// Appends the text to `out`. Misuse (a key outside an object, keys out of order, a value where a key
/// belongs) throws std::logic_error: a writer's mistake, never the input's.
class JsonTextSink final : public JsonSink {
 public:
  explicit JsonTextSink(std::string& out) : out_(out) {}
  void begin_object() override;
  void end_object() override;
  void begin_array() override;
  void end_array() override;
  void key(std::string_view name) override;
  void null() override;
  void boolean(bool value) override;
  void integer(std::int64_t value) override;
  void unsigned_integer(std::uint64_t value) override;
  void number(double value) override;
  void text(std::string_view value) override;
  void json(const Json& value) override;

 private:
  struct Level {
    bool object = false;
    bool empty = true;
    bool keyed = false;    ///< an object's key is written and waits for its value
    std::string last_key;  ///< reused across answers: short keys stay in the string's own buffer
  };
  void before_value();
  void open(bool object, char bracket);
  void close(bool object, char bracket);
  std::string& out_;
  std::vector<Level> levels_;
  std::size_t depth_ = 0;
};

/// Builds nlohmann's document of a value from its write_json (found where the value's type is declared):
/// the to_json of every type that has a writer, so that both forms come from one.
template <typename T>
void to_document(Json& j, const T& value) {
  JsonTreeSink sink(j);
  write_json(sink, value);
}

/// Appends `value` as a JSON string, as nlohmann's dump(-1, ' ', false, replace) writes it: quotes,
/// backslashes and control characters escaped, valid UTF-8 as it is, invalid bytes as U+FFFD.
void append_json_string(std::string& out, std::string_view value);

}  // namespace ecocompute
