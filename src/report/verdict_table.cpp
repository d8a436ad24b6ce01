// Verdict table layout: fixed columns, aligned by code points so "Δ" and "±" do not skew it.
#include "report/verdict_table.hpp"

#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "report/json_access.hpp"

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

constexpr std::size_t n_columns = 7;
using Row = std::array<std::string, n_columns>;

Row row_of(const OrderedJson& doc, bool& any_unavailable) {
  const std::string precision = text_at(doc, "/workload/precision");
  const std::string baseline = text_at(doc, "/measurement/baseline_precision");
  const std::string basis = text_at(doc, "/results/basis");
  std::string energy;
  if (basis == "unavailable") {
    energy = "n/a: no energy source";
    any_unavailable = true;
  } else if (precision == baseline) {
    energy = "baseline";
  } else {
    const auto mean = number_at(doc, "/results/vs_fp16_energy_pct");
    const auto low = number_at(doc, "/statistics/vs_fp16_energy_pct/ci95_low");
    const auto high = number_at(doc, "/statistics/vs_fp16_energy_pct/ci95_high");
    energy = fixed(mean, 2, true);
    if (mean && low && high) energy += fmt::format(" ± {:.2f}", (*high - *low) / 2.0);
  }
  std::string ppl = "-";
  if (doc.contains("quality")) {
    if (precision == baseline) {
      ppl = "baseline";
    } else {
      ppl = fixed(number_at(doc, "/quality/delta_vs_fp16_pct"), 2, true);
      if (auto se = number_at(doc, "/quality/delta_vs_fp16_pct_se"); se && ppl != "-") ppl += fmt::format(" ± {:.2f}", *se);
    }
  }
  const auto n = number_at(doc, "/statistics/n_trials");
  const auto failed = number_at(doc, "/statistics/n_failed");
  std::string trials = n ? fmt::format("{:.0f}", *n) : "-";
  if (failed && *failed > 0) trials += fmt::format(" ({:.0f} failed)", *failed);
  return {precision,
          energy,
          ppl,
          precision == baseline ? std::string("-") : fixed(number_at(doc, "/quality/kld"), 4),
          fixed(number_at(doc, "/results/throughput_tokens_per_s"), 1),
          fixed(number_at(doc, "/results/avg_power_watts"), 1),
          trials};
}

}  // namespace

std::string format_verdict_table(std::span<const OrderedJson> reports) {
  const Row header = {"precision", "ΔE % (95% CI)", "ΔPPL % (± SE)", "KLD", "tok/s", "W", "trials"};
  std::vector<Row> rows{header};
  bool any_unavailable = false;
  for (const OrderedJson& doc : reports) rows.push_back(row_of(doc, any_unavailable));

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
  if (any_unavailable) {
    out += "Energy: no energy source was readable (no NVML, no RAPL); throughput and quality were measured.\n";
  }
  out += "ΔE: paired mean vs the same-run baseline, negative = saves energy; ΔPPL: positive = worse.\n";
  return out;
}

}  // namespace ecocompute::report
