// The basis, source, consistency and plausibility rules of an upload.
#include "report/upload_rules.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "report/figure_ranges.hpp"
#include "report/measurement_claim.hpp"
#include "report/stated_delta.hpp"

namespace ecocompute::report {
namespace {

// What may read energy for a report: the NVML energy counter, RAPL, or nothing. Anything else (a
// spec-sheet estimate, a simulation, free text) is not a source this service can vouch for.
constexpr std::array<std::string_view, 3> kKnownSources{"direct-nvml", "rapl", "none"};

std::optional<std::string> source_violation(const EnergyReport& r) {
  if (r.measurement_source &&
      std::find(kKnownSources.begin(), kKnownSources.end(), *r.measurement_source) == kKnownSources.end()) {
    return fmt::format("measurement_source \"{}\" is not one of \"direct-nvml\", \"rapl\", \"none\"",
                       *r.measurement_source);
  }
  if (r.results.basis != ResultBasis::measured) return std::nullopt;
  if (!r.results.energy_per_token_mj) {
    return "results.basis is \"measured\" but results.energy_per_token_mj is not a number: "
           "a measured report must carry its measured energy";
  }
  if (auto why = why_not_measured(r)) return "results.basis is \"measured\" but " + *why;
  return std::nullopt;
}

}  // namespace

std::optional<std::string> upload_rule_violation(const EnergyReport& report) {
  if (auto wrong_source = source_violation(report)) return wrong_source;
  if (auto implausible = figure_out_of_range(report)) return implausible;
  return stated_delta_disagreement(report);
}

}  // namespace ecocompute::report
