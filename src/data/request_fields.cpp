// Typed request fields.
#include "data/request_fields.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "data/model_size.hpp"
#include "util/quoted_input.hpp"

namespace ecocompute::data {
namespace {

std::optional<double> number_from(const Json& v) {
  if (v.is_number()) return v.get<double>();
  if (!v.is_string()) return std::nullopt;
  const std::string s = v.get<std::string>();
  double d = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec != std::errc{} || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return d;
}

Error field_error(std::string_view key, std::string_view what) {
  return Error{ErrorCode::invalid_argument, fmt::format("field '{}' must be {}", key, what)};
}

}  // namespace

const Json* RequestFields::find(std::string_view key) const {
  if (!body_.is_object()) return nullptr;
  const auto it = body_.find(std::string(key));
  if (it == body_.end() || it->is_null()) return nullptr;
  return &*it;
}

Result<std::optional<double>> RequestFields::number(std::string_view key) const {
  const Json* v = find(key);
  if (v == nullptr) return std::optional<double>{};
  const auto d = number_from(*v);
  if (!d || !std::isfinite(*d)) return field_error(key, "a finite number");
  return d;
}

Result<std::optional<int>> RequestFields::whole(std::string_view key, int min) const {
  auto v = number(key);
  if (!v) return v.error();
  if (!*v) return std::optional<int>{};
  const double d = **v;
  if (d != std::floor(d) || d < min || d > 1e7) return field_error(key, fmt::format("a whole number in {}..10000000", min));
  return std::optional<int>{static_cast<int>(d)};
}

Result<std::optional<std::string>> RequestFields::text(std::string_view key) const {
  const Json* v = find(key);
  if (v == nullptr) return std::optional<std::string>{};
  if (!v->is_string()) return field_error(key, "a string");
  return std::optional<std::string>{v->get<std::string>()};
}

Result<std::optional<bool>> RequestFields::flag(std::string_view key) const {
  const Json* v = find(key);
  if (v == nullptr) return std::optional<bool>{};
  if (v->is_boolean()) return std::optional<bool>{v->get<bool>()};
  if (v->is_number_integer() && (v->get<long long>() == 0 || v->get<long long>() == 1)) {
    return std::optional<bool>{v->get<long long>() == 1};
  }
  if (v->is_string()) {
    const std::string s = v->get<std::string>();
    if (s == "true" || s == "1") return std::optional<bool>{true};
    if (s == "false" || s == "0") return std::optional<bool>{false};
  }
  return field_error(key, "true or false");
}

Result<std::optional<std::vector<std::string>>> RequestFields::texts(std::string_view key) const {
  const Json* v = find(key);
  if (v == nullptr) return std::optional<std::vector<std::string>>{};
  if (!v->is_array()) return field_error(key, "an array of strings");
  std::vector<std::string> out;
  for (const Json& item : *v) {
    if (item.is_string()) {
      out.push_back(item.get<std::string>());
    } else if (item.is_number()) {
      out.push_back(item.dump());
    } else {
      return field_error(key, "an array of strings");
    }
  }
  return std::optional<std::vector<std::string>>{std::move(out)};
}

Result<std::optional<std::vector<int>>> RequestFields::wholes(std::string_view key) const {
  const Json* v = find(key);
  if (v == nullptr) return std::optional<std::vector<int>>{};
  if (!v->is_array()) return field_error(key, "an array of whole numbers ≥ 1");
  std::vector<int> out;
  for (const Json& item : *v) {
    const auto d = number_from(item);
    if (!d || *d != std::floor(*d) || *d < 1 || *d > 1e7) return field_error(key, "an array of whole numbers ≥ 1");
    out.push_back(static_cast<int>(*d));
  }
  return std::optional<std::vector<int>>{std::move(out)};
}

Result<void> RequestFields::refuse_unknown(std::initializer_list<std::string_view> known) const {
  if (!body_.is_object()) return {};
  std::vector<std::string> unknown;
  for (const auto& [key, value] : body_.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) unknown.push_back(quoted_input(key));
  }
  if (unknown.empty()) return {};
  return unexpected(ErrorCode::invalid_argument, fmt::format("unknown field{} {} (this request takes {})",
                                                             unknown.size() == 1 ? "" : "s", fmt::join(unknown, ", "),
                                                             fmt::join(known, ", ")));
}

Result<std::optional<double>> RequestFields::params_b() const {
  std::optional<double> size;
  for (const char* key : {"params_b", "N"}) {
    auto v = number(key);
    if (!v) return v.error();
    if (*v) size = *v;
  }
  return size;
}

Result<BatchContext> RequestFields::batch_and_context() const {
  BatchContext out;
  for (auto [key, field] : {std::pair{"batch", &out.batch}, std::pair{"ctx", &out.context}, std::pair{"context", &out.context}}) {
    auto v = whole(key);
    if (!v) return v.error();
    if (!*v) continue;
    auto bounded = field == &out.batch ? check_batch_size(**v, fmt::format("field '{}'", key))
                                       : check_context_length(**v, fmt::format("field '{}'", key));
    if (!bounded) return bounded.error();
    *field = *bounded;
  }
  return out;
}

Result<bool> RequestFields::allow_borrow() const {
  auto v = flag("allow_borrow");
  if (!v) return v.error();
  return v->value_or(false);
}

}  // namespace ecocompute::data
