// JSON helpers over nlohmann::json: parsing that returns a Result naming the input.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string_view>

#include "util/result.hpp"

namespace ecocompute {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

/// Parses JSON text; `source` names the input in the error (a path, "request body" …).
Result<OrderedJson> parse_json(std::string_view text, std::string_view source);

/// Reads and parses a JSON file; the error names the path.
Result<OrderedJson> read_json_file(const std::filesystem::path& path);

/// Returns the value as JSON, or null when absent: answers keep every field, a figure the data cannot
/// give as null (the published answers have such fields as "number or null").
template <typename T>
Json json_or_null(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

/// Returns the text as JSON, or null when it is empty: a name, command or reason the run did not have.
inline Json text_or_null(const std::string& text) { return text.empty() ? Json(nullptr) : Json(text); }

}  // namespace ecocompute
