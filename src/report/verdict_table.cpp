// Verdict table layout: fixed columns, aligned by code points so "Δ" and "±" do not skew it.
#include "report/verdict_table.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "report/paired_trials.hpp"
#include "util/statistics.hpp"

namespace ecocompute::report {
namespace {

std::size_t display_width(std::string_view text) {
  // UTF-8 continuation bytes are 10xxxxxx; every other byte starts a code point.
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

std::string fixed(std::optional<double> v, int decimals, bool sign = false) {
  if (!v) return "-";
  return sign ? fmt::format("{:+.{}f}", *v, decimals) : fmt::format("{:.{}f}", *v, decimals);
}

constexpr std::size_t n_columns = 8;
using Row = std::array<std::string, n_columns>;

// What the footer must explain, gathered over the rows.
struct Footnotes {
  bool no_energy_source = false;
  bool no_valid_trial = false;
};

// Decode tokens/s against the baseline of the same batch, paired by block: mean ± the 95 % half-width.
std::string throughput_vs_baseline(const EnergyReport& r, const EnergyReport* baseline) {
  if (baseline == nullptr || baseline == &r) return "-";
  const std::vector<double> ratios = paired_block_deltas(*baseline, r).throughput_pct;
  if (ratios.empty()) return "-";
  const Summary s = summarize(ratios);
  return s.ci_half_width ? fmt::format("{:+.1f} ± {:.1f}", s.mean, *s.ci_half_width) : fmt::format("{:+.1f}", s.mean);
}

// The baseline report measured at the same batch (or concurrency) in this set, if any.
const EnergyReport* baseline_for(const EnergyReport& r, std::span<const EnergyReport> reports) {
  for (const EnergyReport& other : reports) {
    if (other.is_baseline() && other.workload.load_level() == r.workload.load_level()) return &other;
  }
  return nullptr;
}

Row row_of(const EnergyReport& r, const EnergyReport* baseline, Footnotes& notes) {
  // Several batch sizes of one precision are rows of their own: name the batch above 1.
  std::string precision = r.workload.precision;
  if (r.workload.batch_size > 1) precision += fmt::format("/b{}", r.workload.batch_size);
  const bool is_baseline = r.is_baseline();
  std::string energy;
  // An energy source that read windows which all failed (throttled, invalid) is not "no energy source".
  const bool source_read = r.measurement_source && *r.measurement_source != "none";
  const bool no_valid_trial = r.statistics && r.statistics->n_trials == 0;
  if (r.results.basis == ResultBasis::unavailable && source_read && no_valid_trial) {
    energy = "n/a: no valid trial";
    notes.no_valid_trial = true;
  } else if (r.results.basis == ResultBasis::unavailable) {
    energy = "n/a: no energy source";
    notes.no_energy_source = true;
  } else if (is_baseline) {
    energy = "baseline";
  } else if (!r.results.vs_fp16_energy_pct && r.statistics) {
    energy = "n/a: no baseline pair";
  } else {
    const std::optional<double> mean = r.results.vs_fp16_energy_pct;
    energy = fixed(mean, 2, true);
    if (r.statistics) {
      const PairedDelta& d = r.statistics->vs_fp16_energy_pct;
      if (mean && d.ci95_low && d.ci95_high) energy += fmt::format(" ± {:.2f}", (*d.ci95_high - *d.ci95_low) / 2.0);
    }
  }
  std::string ppl = "-";
  std::optional<double> kld;
  if (r.quality) {
    if (is_baseline) {
      ppl = "baseline";
    } else {
      ppl = fixed(r.quality->delta_vs_fp16_pct, 2, true);
      if (const auto se = r.quality->delta_vs_fp16_pct_se; se && ppl != "-") ppl += fmt::format(" ± {:.2f}", *se);
      kld = r.quality->kld;
    }
  }
  std::string trials = "-";
  if (r.statistics) {
    trials = fmt::format("{}", r.statistics->n_trials);
    std::vector<std::string> others;
    if (r.statistics->n_failed > 0) others.push_back(fmt::format("{} failed", r.statistics->n_failed));
    if (r.statistics->n_cancelled.value_or(0) > 0) others.push_back(fmt::format("{} cancelled", *r.statistics->n_cancelled));
    if (!others.empty()) trials += fmt::format(" ({})", fmt::join(others, ", "));
  }
  // The median of the trials where they are listed (a 1.0/1.1 report has only its mean).
  std::optional<double> speed = median_decode_tokens_per_s(r);
  if (!speed) speed = r.results.throughput_tokens_per_s;
  return {precision,
          energy,
          ppl,
          is_baseline ? std::string("-") : fixed(kld, 4),
          fixed(speed, 1),
          throughput_vs_baseline(r, baseline),
          fixed(r.results.avg_power_watts, 1),
          trials};
}

}  // namespace

std::string format_verdict_table(std::span<const EnergyReport> reports) {
  const Row header = {"precision", "ΔE % (95% CI)", "ΔPPL % (± SE)", "KLD", "tok/s", "tok/s vs base %", "W", "trials"};
  std::vector<Row> rows{header};
  Footnotes notes;
  for (const EnergyReport& report : reports) rows.push_back(row_of(report, baseline_for(report, reports), notes));

  std::array<std::size_t, n_columns> widths{};
  for (const Row& row : rows) {
    for (std::size_t c = 0; c < n_columns; ++c) widths[c] = std::max(widths[c], display_width(row[c]));
  }
  std::string out;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::string line;
    for (std::size_t c = 0; c < n_columns; ++c) {
      const std::string& cell = rows[r][c];
      const std::string pad(widths[c] - display_width(cell), ' ');
      line += c == 0 ? cell + pad : "  " + pad + cell;  // first column left, numbers right
    }
    out += line + "\n";
    if (r == 0) {
      std::size_t total = 0;
      for (std::size_t w : widths) total += w;
      out += std::string(total + 2 * (n_columns - 1), '-') + "\n";
    }
  }
  if (notes.no_energy_source) {
    out += "Energy: no energy source was readable (no NVML, no RAPL); throughput and quality were measured.\n";
  }
  if (notes.no_valid_trial) {
    out += "No valid trial: every trial of that row failed (run.json gives each reason); a throttled trial counts "
           "only under --accept-throttled, flagged.\n";
  }
  out += "ΔE: paired mean vs the same-run baseline, negative = saves energy; ΔPPL: positive = worse.\n";
  out += "tok/s: median decode throughput of the trials; vs base: paired by trial block, mean ± 95 % CI half-width.\n";
  return out;
}

}  // namespace ecocompute::report
