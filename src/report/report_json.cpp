// JsonReader, JsonWriter and the sections energy.json and run.json share.
#include "report/report_json.hpp"

#include <cmath>
#include <limits>

#include "report/energy_fields.hpp"

namespace ecocompute::report::detail {
namespace {

const OrderedJson& empty_object() {
  static const OrderedJson empty = OrderedJson::object();
  return empty;
}

}  // namespace

JsonReader::JsonReader(const OrderedJson& object, std::string path) : object_(&object), path_(std::move(path)) {}

std::string JsonReader::where(const char* key) const { return path_.empty() ? key : path_ + "." + key; }

void JsonReader::fail(const char* key, const std::string& what) const { throw ReadFailure{where(key) + ": " + what}; }

void JsonReader::wrong_type(const char* key, const char* expected, const OrderedJson& value) const {
  fail(key, fmt::format("expected {}, got {}", expected, value.type_name()));
}

const OrderedJson* JsonReader::member(const char* key) const {
  if (!object_->is_object()) return nullptr;
  const auto it = object_->find(key);
  if (it == object_->end() || it->is_null()) return nullptr;
  return &*it;
}

std::optional<std::string> JsonReader::text(const char* key) const {
  const OrderedJson* v = member(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_string()) wrong_type(key, "a string", *v);
  return v->get<std::string>();
}

std::string JsonReader::text_or(const char* key, std::string fallback) const {
  return text(key).value_or(std::move(fallback));
}

std::optional<double> JsonReader::number(const char* key) const {
  const OrderedJson* v = member(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_number()) wrong_type(key, "a number", *v);
  return v->get<double>();
}

// JSON Schema draft 7 counts any number with a zero fractional part as an integer (2560.0 is 2560);
// nlohmann keeps 2560.0 a float, so the whole-number readers accept integral floats and refuse
// fractions and values beyond the 64-bit range.
std::int64_t JsonReader::whole_number(const char* key, const OrderedJson& v) const {
  constexpr double kTwoTo63 = 9223372036854775808.0;
  if (v.is_number_unsigned()) {
    if (v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      fail(key, "too large");
    }
    return static_cast<std::int64_t>(v.get<std::uint64_t>());
  }
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (!v.is_number_float()) wrong_type(key, "a whole number", v);
  const double d = v.get<double>();
  if (!std::isfinite(d) || std::trunc(d) != d) fail(key, fmt::format("expected a whole number, got {}", v.dump()));
  if (d < -kTwoTo63 || d >= kTwoTo63) fail(key, "too large");
  return static_cast<std::int64_t>(d);
}

std::optional<std::int64_t> JsonReader::integer(const char* key) const {
  const OrderedJson* v = member(key);
  if (v == nullptr) return std::nullopt;
  return whole_number(key, *v);
}

std::optional<std::uint64_t> JsonReader::unsigned_integer(const char* key) const {
  const OrderedJson* v = member(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_number_unsigned()) return v->get<std::uint64_t>();
  const std::int64_t n = whole_number(key, *v);
  if (n < 0) fail(key, "must not be negative");
  return static_cast<std::uint64_t>(n);
}

std::optional<bool> JsonReader::boolean(const char* key) const {
  const OrderedJson* v = member(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_boolean()) wrong_type(key, "true or false", *v);
  return v->get<bool>();
}

std::vector<std::string> JsonReader::texts(const char* key) const {
  const OrderedJson* v = member(key);
  std::vector<std::string> out;
  if (v == nullptr) return out;
  if (!v->is_array()) wrong_type(key, "an array of strings", *v);
  for (const OrderedJson& item : *v) {
    if (!item.is_string()) wrong_type(key, "an array of strings", item);
    out.push_back(item.get<std::string>());
  }
  return out;
}

std::vector<std::int64_t> JsonReader::integers(const char* key) const {
  const OrderedJson* v = member(key);
  std::vector<std::int64_t> out;
  if (v == nullptr) return out;
  if (!v->is_array()) wrong_type(key, "an array of whole numbers", *v);
  for (const OrderedJson& item : *v) {
    if (!item.is_number()) wrong_type(key, "an array of whole numbers", item);
    out.push_back(whole_number(key, item));
  }
  return out;
}

std::vector<double> JsonReader::numbers(const char* key) const {
  const OrderedJson* v = member(key);
  std::vector<double> out;
  if (v == nullptr) return out;
  if (!v->is_array()) wrong_type(key, "an array of numbers", *v);
  for (const OrderedJson& item : *v) {
    if (!item.is_number()) wrong_type(key, "an array of numbers", item);
    out.push_back(item.get<double>());
  }
  return out;
}

std::optional<JsonReader> JsonReader::object(const char* key) const {
  const OrderedJson* v = member(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_object()) wrong_type(key, "an object", *v);
  return JsonReader(*v, where(key));
}

JsonReader JsonReader::object_or_empty(const char* key) const {
  if (auto o = object(key)) return *o;
  return JsonReader(empty_object(), where(key));
}

std::optional<std::vector<JsonReader>> JsonReader::objects(const char* key) const {
  const OrderedJson* v = member(key);
  if (v == nullptr) return std::nullopt;
  if (!v->is_array()) wrong_type(key, "an array of objects", *v);
  std::vector<JsonReader> out;
  for (std::size_t i = 0; i < v->size(); ++i) {
    const OrderedJson& item = (*v)[i];
    const std::string item_path = where(key) + "[" + std::to_string(i) + "]";
    if (!item.is_object()) throw ReadFailure{fmt::format("{}: expected an object, got {}", item_path, item.type_name())};
    out.emplace_back(item, item_path);
  }
  return out;
}

PairedDelta read_paired_delta(const JsonReader& r) { return read_section<PairedDelta>(r); }

OrderedJson paired_delta_json(const PairedDelta& d) { return section_json(d, true); }

OrderedJson environment_json(const Environment& e) { return section_json(e, true); }

}  // namespace ecocompute::report::detail
