// libFuzzer target: JSON text through the report reader (without the schema in front of it) and the
// consistency checker, so that the checker sees every shape of typed report, not only valid ones:
// negative and zero counts, huge and tiny figures, absent sections. Nothing may crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "report/energy_report.hpp"
#include "report/report_consistency.hpp"
#include "util/json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (size > 1 << 16) return 0;
  auto document = ecocompute::parse_json(text, "fuzz");
  if (!document) return 0;
  auto report = ecocompute::report::energy_report_from_json(*document, "fuzz");
  if (!report) return 0;
  const auto found = ecocompute::report::find_contradictions(*report);
  const auto error = ecocompute::report::contradiction_error(*report, "fuzz");
  if (found.empty() == error.has_value()) __builtin_trap();
  (void)ecocompute::report::to_json(*report);
  return 0;
}
