// The field table of energy.json as a flat list, for what documents or checks the fields from outside
// the reader and writer: the "Fields" reference in docs/energy-json.md and the tests that hold the
// docs and the consistency rules to the table.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "report/field_bounds.hpp"

namespace ecocompute::report {

/// One field of energy.json: its dotted path ("results.prefill.energy_j"; a list's items as
/// "trials[].decode.tokens"), JSON type, the first schema version with it ("1.0", "1.1", "1.2"), when
/// it is written ("required", "nullable", "optional", "nullable, 1.2 only"), its unit ("" when none),
/// the range of a figure (a spread's resolved under the figure it describes; none for a section), and
/// whether the 1.2 schema requires it.
struct EnergyFieldInfo {
  std::string path;
  std::string type;
  std::string since;
  std::string written;
  std::string unit;
  std::optional<FieldBounds> bounds;
  bool in_every_1_2 = false;
};

/// Every field of the table, sections followed by their members, in the order a report is written.
[[nodiscard]] const std::vector<EnergyFieldInfo>& energy_report_fields();

/// Returns whether `path` names a field of the table; list indices ("trials[2].decode") match "[]".
[[nodiscard]] bool is_energy_report_field(const std::string& path);

/// The field `path` names (list indices as in is_energy_report_field), or null.
[[nodiscard]] const EnergyFieldInfo* find_energy_report_field(const std::string& path);

/// The markdown table of every field, as docs/energy-json.md carries it under "Fields".
[[nodiscard]] std::string energy_fields_markdown();

}  // namespace ecocompute::report
