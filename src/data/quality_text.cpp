// Quality renderings: every figure keeps its basis and its source on the same line.
#include "data/quality_text.hpp"

#include <fmt/format.h>

namespace ecocompute::data {
namespace {

std::string figure_text(const std::optional<QualityFigure>& f, const char* unit) {
  if (!f) return "—";
  if (!f->uncertainty) return fmt::format("{:.4g}{}", f->value, unit);
  return fmt::format("{:.4g} ± {:.2g}{}", f->value, *f->uncertainty, unit);
}

}  // namespace

std::string published_quality_table(const std::vector<PublishedQualityRow>& rows) {
  std::string out = fmt::format("{:<12} {:<7} {:<10} {:<20} {:<20} {:<17} {:<17} {}\n", "model", "type", "imatrix",
                                "ΔPPL % vs " + std::string(rows.empty() ? "F16" : rows.front().baseline), "KLD", "mean Δp",
                                "RMS Δp", "backend, corpus, source (published)");
  for (const PublishedQualityRow& r : rows) {
    out += fmt::format("{:<12} {:<7} {:<10} {:<20} {:<20} {:<17} {:<17} {}, {}, {}\n", r.model, r.precision, r.imatrix,
                       figure_text(r.delta_ppl_pct, " %"), figure_text(r.kld, ""), figure_text(r.mean_dp_pct, " %"),
                       figure_text(r.rms_dp_pct, " %"), r.backend, r.corpus, r.provenance());
  }
  out += fmt::format("{} rows\n", rows.size());
  if (rows.empty()) out += "(`ecocompute data import-quality` reads them from the fetched llama.cpp source)\n";
  return out;
}

std::string to_text(const FormatQualityCost& c) {
  if (!c.delta_ppl_pct) return fmt::format("{}: quality cost {}", c.precision, c.reason);
  std::string interval;
  if (c.delta_ppl_pct_low && c.delta_ppl_pct_high) {
    interval = fmt::format(" ({:+.3g} … {:+.3g} %: {})", *c.delta_ppl_pct_low, *c.delta_ppl_pct_high, c.uncertainty);
  }
  std::string extra;
  if (c.kld) extra += fmt::format(", KLD {:.4g}", *c.kld);
  if (c.mean_dp_pct) extra += fmt::format(", mean Δp {:+.3g} %", *c.mean_dp_pct);
  return fmt::format("{}: ΔPPL {:+.3g} %{}{} — {} ({})", c.precision, *c.delta_ppl_pct, interval, extra, c.basis_text,
                     c.source);
}

}  // namespace ecocompute::data
