// Tolerant reads from a report document: a missing path or a path through another type is "absent".
#pragma once

#include <optional>
#include <string>

#include "util/json.hpp"

namespace ecocompute::report {

/// Returns the node at JSON pointer `pointer` (e.g. "/results/basis"), or nullptr when the path is
/// absent, malformed or passes through a value of another type. Never throws.
[[nodiscard]] const OrderedJson* find_at(const OrderedJson& document, const char* pointer) noexcept;

/// Returns the number at `pointer`, or nothing when absent or not a number.
[[nodiscard]] std::optional<double> number_at(const OrderedJson& document, const char* pointer) noexcept;

/// Returns the string at `pointer`, or "" when absent or not a string.
[[nodiscard]] std::string text_at(const OrderedJson& document, const char* pointer);

}  // namespace ecocompute::report
