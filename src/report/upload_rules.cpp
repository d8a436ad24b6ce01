// The basis and plausibility rules of an upload.
#include "report/upload_rules.hpp"

#include <fmt/format.h>

namespace ecocompute::report {
namespace {

// The basis rules a 1.1 schema cannot state: a measured report carries its energy per token, and its
// source is a measurement.
std::optional<std::string> basis_mismatch(const EnergyReport& r) {
  if (r.results.basis != ResultBasis::measured) return std::nullopt;
  if (!r.results.energy_per_token_mj) {
    return "results.basis is \"measured\" but results.energy_per_token_mj is not a number: "
           "a measured report must carry its measured energy";
  }
  if (r.measurement_source) {
    const std::string& source = *r.measurement_source;
    if (source == "none" || source.find("estimate") != std::string::npos ||
        source.find("interpolat") != std::string::npos || source.find("dataset") != std::string::npos) {
      return fmt::format("results.basis is \"measured\" but measurement_source \"{}\" is not a measurement", source);
    }
  }
  return std::nullopt;
}

// Bounds the 1.1 schema does not state (the 1.2 schema does): a size and energies a real run can have.
std::optional<std::string> implausible_number(const EnergyReport& r) {
  if (const auto& n = r.workload.params_b; n && !(*n > 0 && *n <= 100000)) {
    return fmt::format("workload.params_b {} is outside (0, 100000] billion parameters", *n);
  }
  const std::pair<const char*, const std::optional<double>*> energies[] = {
      {"energy_per_token_mj", &r.results.energy_per_token_mj},
      {"fp16_energy_per_token_mj", &r.results.fp16_energy_per_token_mj}};
  for (const auto& [key, v] : energies) {
    if (*v && !(**v >= 0 && **v <= 1e7)) return fmt::format("results.{} {} is outside [0, 1e7] mJ", key, **v);
  }
  if (const auto& pct = r.results.vs_fp16_energy_pct; pct && !(*pct >= -100 && *pct <= 1e6)) {
    return fmt::format("results.vs_fp16_energy_pct {} is outside [-100, 1e6] %", *pct);
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> upload_rule_violation(const EnergyReport& report) {
  if (auto mismatch = basis_mismatch(report)) return mismatch;
  return implausible_number(report);
}

}  // namespace ecocompute::report
