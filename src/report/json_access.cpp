// JSON pointer reads that treat every failure as absence (reports of older versions lack fields).
#include "report/json_access.hpp"

namespace ecocompute::report {

const OrderedJson* find_at(const OrderedJson& document, const char* pointer) noexcept {
  try {
    const OrderedJson::json_pointer p(pointer);
    return document.contains(p) ? &document.at(p) : nullptr;
  } catch (const nlohmann::json::exception&) {
    return nullptr;
  }
}

std::optional<double> number_at(const OrderedJson& document, const char* pointer) noexcept {
  const OrderedJson* v = find_at(document, pointer);
  return v != nullptr && v->is_number() ? std::optional<double>(v->get<double>()) : std::nullopt;
}

std::string text_at(const OrderedJson& document, const char* pointer) {
  const OrderedJson* v = find_at(document, pointer);
  return v != nullptr && v->is_string() ? v->get<std::string>() : std::string();
}

}  // namespace ecocompute::report
