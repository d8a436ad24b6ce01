// Validation of energy.json reports (ecocompute-energy/1.0, 1.1 and 1.2) against the shipped JSON Schema.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::report {

/// Deepest nesting a report may have; our reports use 5 levels. Deeper input is refused before
/// validation, so a hostile file cannot exhaust the stack of the recursive validator.
inline constexpr std::size_t max_report_depth = 32;

/// Largest report file read by the validator (bytes).
inline constexpr std::size_t max_report_bytes = 64u << 20;

/// One reason a document is not a valid report: where (a JSON pointer, "" for the root) and what.
struct SchemaProblem {
  std::string pointer;
  std::string message;

  bool operator==(const SchemaProblem&) const = default;
};

/// Returns the shipped schema text (draft 7), as compiled into the binary.
[[nodiscard]] std::string_view energy_schema_text() noexcept;

/// Checks a parsed document: nesting depth, that every number is finite, the JSON Schema (1.2 rules
/// for "ecocompute-energy/1.2", the published 1.1 rules for 1.0 and 1.1), and, for 1.2, that
/// environment.fingerprint is the hash of the other environment fields. Returns every problem found,
/// empty when the document is valid. Thread-safe.
[[nodiscard]] std::vector<SchemaProblem> validate_energy_json(const OrderedJson& document);

/// Parses and checks JSON text; `source` names the input in the error. Returns an error when the text
/// is not JSON or is nested deeper than max_report_depth, else the problems (empty = valid).
[[nodiscard]] Result<std::vector<SchemaProblem>> validate_energy_text(std::string_view text,
                                                                      std::string_view source);

/// Reads and checks a report file. Returns an error when the file is unreadable, larger than
/// max_report_bytes, not JSON or too deep, else the problems (empty = valid).
[[nodiscard]] Result<std::vector<SchemaProblem>> validate_energy_file(const std::filesystem::path& path);

/// Returns "pointer: message" lines, one per problem (the root is written as "/").
[[nodiscard]] std::string describe(const std::vector<SchemaProblem>& problems);

}  // namespace ecocompute::report
