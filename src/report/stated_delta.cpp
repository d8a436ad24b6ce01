// The stated ΔE, checked against the paired mean and against the energies.
#include "report/stated_delta.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace ecocompute::report {
namespace {

// How far a stated ΔE may sit from the one its energies give. A 1.0/1.1 report rounds (two decimals
// in the published files, one in some tables); a 1.2 report states the mean of its paired blocks,
// which differs from the ratio of pooled energies by at most about its own CI.
double tolerance_pp(const EnergyReport& r, double recomputed) {
  double tolerance = std::max(0.05, 0.005 * std::abs(recomputed));
  if (r.statistics) {
    const PairedDelta& d = r.statistics->vs_fp16_energy_pct;
    double half_width = 0.0;
    if (d.ci95_low && d.ci95_high) half_width = (*d.ci95_high - *d.ci95_low) / 2.0;
    tolerance = std::max({tolerance, 0.5, half_width});
  }
  return tolerance;
}

}  // namespace

std::optional<std::string> stated_delta_disagreement(const EnergyReport& r) {
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
  const double tolerance = tolerance_pp(r, *recomputed);
  if (std::abs(*stated - *recomputed) <= tolerance) return std::nullopt;
  return fmt::format(
      "results.vs_fp16_energy_pct {} disagrees with the energies: ({} − {}) / {} × 100 = {:.3f} %, "
      "more than the {:.2f} pp that rounding and the stated uncertainty allow",
      *stated, *r.results.energy_per_token_mj, *r.results.fp16_energy_per_token_mj,
      *r.results.fp16_energy_per_token_mj, *recomputed, tolerance);
}

}  // namespace ecocompute::report
