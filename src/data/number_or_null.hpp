// A figure the data cannot give is written as JSON null rather than left out, so that every answer
// keeps the same fields (the published answers have them as "number or null").
#pragma once

#include <optional>

#include "util/json.hpp"

namespace ecocompute::data {

inline Json number_or_null(const std::optional<double>& v) { return v ? Json(*v) : Json(nullptr); }

}  // namespace ecocompute::data
