// The basis, source, consistency and plausibility rules of an upload.
#include "report/upload_rules.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

namespace ecocompute::report {
namespace {

// What may read energy for a report: the NVML energy counter, RAPL, or nothing. Anything else (a
// spec-sheet estimate, a simulation, free text) is not a source this service can vouch for.
constexpr std::array<std::string_view, 3> kKnownSources{"direct-nvml", "rapl", "none"};

bool reads_energy(std::string_view source) { return source == "direct-nvml" || source == "rapl"; }

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
  if (!r.measurement_source) {
    return "results.basis is \"measured\" but measurement_source is absent: a measured report must say "
           "what read the energy (\"direct-nvml\" or \"rapl\")";
  }
  if (!reads_energy(*r.measurement_source)) {
    return fmt::format("results.basis is \"measured\" but measurement_source \"{}\" read no energy",
                       *r.measurement_source);
  }
  return std::nullopt;
}

// How far a stated ΔE may sit from the one its energies give. A 1.0/1.1 report rounds (two decimals
// in the published files, one in some tables); a 1.2 report states the mean of its paired blocks,
// which differs from the ratio of pooled energies by at most about its own CI.
double delta_tolerance_pp(const EnergyReport& r, double recomputed) {
  double tolerance = std::max(0.05, 0.005 * std::abs(recomputed));
  if (r.statistics) {
    const PairedDelta& d = r.statistics->vs_fp16_energy_pct;
    double half_width = 0.0;
    if (d.ci95_low && d.ci95_high) half_width = (*d.ci95_high - *d.ci95_low) / 2.0;
    tolerance = std::max({tolerance, 0.5, half_width});
  }
  return tolerance;
}

std::optional<std::string> delta_violation(const EnergyReport& r) {
  const auto& stated = r.results.vs_fp16_energy_pct;
  if (!stated) return std::nullopt;
  if (r.statistics) {
    const auto& mean = r.statistics->vs_fp16_energy_pct.mean;
    if (mean && std::abs(*mean - *stated) > 1e-6 * std::max(1.0, std::abs(*mean))) {
      return fmt::format("results.vs_fp16_energy_pct {} is not statistics.vs_fp16_energy_pct.mean {}", *stated,
                         *mean);
    }
  }
  const std::optional<double> recomputed = r.delta_from_energies();
  if (!recomputed) return std::nullopt;
  const double tolerance = delta_tolerance_pp(r, *recomputed);
  if (std::abs(*stated - *recomputed) <= tolerance) return std::nullopt;
  return fmt::format(
      "results.vs_fp16_energy_pct {} disagrees with the energies: ({} − {}) / {} × 100 = {:.3f} %, "
      "more than the {:.2f} pp that rounding and the stated uncertainty allow",
      *stated, *r.results.energy_per_token_mj, *r.results.fp16_energy_per_token_mj,
      *r.results.fp16_energy_per_token_mj, *recomputed, tolerance);
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
  if (auto wrong_source = source_violation(report)) return wrong_source;
  if (auto implausible = implausible_number(report)) return implausible;
  return delta_violation(report);
}

}  // namespace ecocompute::report
