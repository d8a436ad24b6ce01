// The 1.2 rules of the JSON Schema take which members each object requires and every figure's
// minimum/maximum from the field table, so that neither is stated twice. The rest of the schema (types,
// patterns, enums, the scenario and basis rules, the 1.1 rules) is the embedded file's.
#pragma once

#include <string_view>

#include "util/json.hpp"

namespace ecocompute::report {

/// The schema `schema_text` with its 1.2 report's `required` lists and numeric bounds replaced by the
/// field table's. Throws std::logic_error when a field of the table has no place in the schema, or a
/// bounded figure is a reference (whose bounds other fields would share): both are mistakes in the build.
[[nodiscard]] Json energy_schema_from_table(std::string_view schema_text);

}  // namespace ecocompute::report
