#include "data/in_run_comparison.hpp"

#include <vector>

#include <fmt/format.h>

#include "report/paired_trials.hpp"
#include "util/statistics.hpp"

namespace ecocompute::data {
namespace {

bool same_run(const report::EnergyReport& a, const report::EnergyReport& b) {
  return a.provenance && b.provenance && a.provenance->run_id && b.provenance->run_id &&
         *a.provenance->run_id == *b.provenance->run_id && a.workload.load_level() == b.workload.load_level() &&
         a.workload.precision != b.workload.precision;
}

}  // namespace

std::optional<InRunComparison> compare_in_run(const report::EnergyReport& a, const report::EnergyReport& b) {
  if (!same_run(a, b)) return std::nullopt;
  const report::PairedBlockDeltas pairs = report::paired_block_deltas(a, b);
  const std::vector<double>& deltas = pairs.energy_pct;
  const std::vector<double>& speed_ratios = pairs.throughput_pct;
  if (deltas.empty()) return std::nullopt;
  InRunComparison c;
  c.run_id = *a.provenance->run_id;
  c.precision_a = a.workload.precision;
  c.precision_b = b.workload.precision;
  c.batch_size = a.workload.load_level();
  c.n_pairs = deltas.size();
  const Summary energy = summarize(deltas);
  c.delta_pct = energy.mean;
  c.ci95_low_pct = energy.ci_low;
  c.ci95_high_pct = energy.ci_high;
  if (speed_ratios.size() == deltas.size()) {
    const Summary speed = summarize(speed_ratios);
    c.throughput_ratio_pct = speed.mean;
    c.throughput_ci95_low_pct = speed.ci_low;
    c.throughput_ci95_high_pct = speed.ci_high;
  }
  return c;
}

void to_json(Json& j, const InRunComparison& c) {
  j = Json{{"run_id", c.run_id},
           {"precision_a", c.precision_a},
           {"precision_b", c.precision_b},
           {"batch_size", c.batch_size},
           {"n_pairs", c.n_pairs},
           {"delta_pct", c.delta_pct},
           {"ci95_pct", c.ci95_low_pct ? Json::array({*c.ci95_low_pct, *c.ci95_high_pct}) : Json(nullptr)},
           {"throughput_difference_pct", json_or_null(c.throughput_ratio_pct)},
           {"throughput_ci95_pct", c.throughput_ci95_low_pct
                                       ? Json::array({*c.throughput_ci95_low_pct, *c.throughput_ci95_high_pct})
                                       : Json(nullptr)}};
}

std::string to_text(const InRunComparison& c) {
  std::string out = fmt::format("one run ({}), batch {}: {} against {}, paired by trial block (n = {}): ΔE {:+.2f} %",
                                c.run_id, c.batch_size, c.precision_b, c.precision_a, c.n_pairs, c.delta_pct);
  if (c.ci95_low_pct) out += fmt::format(" (95 % CI {:+.2f} … {:+.2f})", *c.ci95_low_pct, *c.ci95_high_pct);
  if (c.throughput_ratio_pct) {
    out += fmt::format(", decode tok/s {:+.2f} %", *c.throughput_ratio_pct);
    if (c.throughput_ci95_low_pct) {
      out += fmt::format(" (95 % CI {:+.2f} … {:+.2f})", *c.throughput_ci95_low_pct, *c.throughput_ci95_high_pct);
    }
  }
  return out + "\n";
}

}  // namespace ecocompute::data
