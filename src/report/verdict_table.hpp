// The final human table of a run: per precision ΔE % ± CI, ΔPPL %, KLD, tok/s, W.
#pragma once

#include <span>
#include <string>

#include "report/energy_report.hpp"

namespace ecocompute::report {

/// Returns the verdict table of a run's reports (baseline first, as given), one line per
/// report: precision, ΔE % vs the baseline with its 95 % CI half-width, ΔPPL % ± SE, KLD, decode tok/s,
/// average power, valid trials. Figures a report does not hold print as "-"; a run without an energy
/// source says so in the ΔE column ("n/a: no energy source") and in a footnote. Plain text (UTF-8),
/// columns aligned by code points.
[[nodiscard]] std::string format_verdict_table(std::span<const EnergyReport> reports);

}  // namespace ecocompute::report
