// Terminal renderings.
#include "data/console_text.hpp"

#include <fmt/format.h>

namespace ecocompute::data {
namespace {

std::string pct(const std::optional<double>& v) { return v ? fmt::format("{:+.2f} %", *v) : "—"; }
std::string num(const std::optional<double>& v, const char* f = "{:.3g}") {
  return v ? fmt::format(fmt::runtime(f), *v) : "—";
}

}  // namespace

std::string to_text(const ImportSummary& s) {
  std::string out = fmt::format("{}: {} sessions and {} rows added, {} already present, {} flagged\n", s.source, s.sessions_added,
                                s.rows_added, s.rows_already_present, s.rows_flagged);
  for (const std::string& n : s.notes) out += "  note: " + n + "\n";
  return out;
}

std::string sessions_table(const std::vector<Session>& sessions, const std::map<std::string, int>& row_counts) {
  std::string out = fmt::format("{:<16} {:<26} {:<10} {:<10} {:<26} {:>5}  {}\n", "id", "label", "gpu", "arch", "engine", "rows",
                                "provenance");
  for (const Session& s : sessions) {
    const auto counted = row_counts.find(s.id);
    const int n = counted != row_counts.end() ? counted->second : 0;
    out += fmt::format("{:<16} {:<26} {:<10} {:<10} {:<26} {:>5}  {}\n", s.id, s.label, s.gpu, s.gpu_arch, s.engine, n, s.provenance);
  }
  return out;
}

std::string session_text(const Session& s, const std::vector<DataRow>& rows) {
  std::string out = fmt::format("session {} ({})\n  gpu: {} ({})\n  engine: {} {}\n  software: {}\n  date: {}\n  provenance: {}\n"
                                "  fingerprint: {}\n",
                                s.label, s.id, s.gpu, s.gpu_arch, s.engine, s.engine_version, s.software.empty() ? "(not published)" : s.software,
                                s.date.empty() ? "(unknown)" : s.date, s.provenance, s.fingerprint);
  out += fmt::format("{:<40} {:>6} {:<7} {:<11} {:>10} {:>10} {:>10} {:>10} {:>3} {:>8} {}\n", "model", "size", "prec", "batch, ctx",
                     "E mJ/tok", "FP16", "ΔE", "stored", "n", "E vs P/T", "basis");
  for (const DataRow& r : rows) {
    // A row's context is named only beyond the baseline (0 stands for "at most the baseline").
    const std::string load = r.context_tokens > 0 ? fmt::format("b{} ctx{}", r.batch_size, r.context_tokens)
                                                  : fmt::format("b{}", r.batch_size);
    out += fmt::format("{:<40} {:>5g}B {:<7} {:<11} {:>10.1f} {:>10.1f} {:>10} {:>10} {:>3} {:>8} {}{}\n", r.model, r.params_b,
                       r.precision, load, r.energy_per_token_mj, r.fp16_energy_per_token_mj, pct(r.delta_pct()), pct(r.stored_delta_pct), r.n_trials,
                       r.consistency_gap_pct() ? fmt::format("{:.2f}%", *r.consistency_gap_pct()) : "—", to_string(r.basis),
                       r.is_inconsistent() ? "  FLAGGED: energy/token ≠ power/throughput" : "");
  }
  return out;
}

std::string curves_table(const std::vector<Curve>& curves) {
  std::string out = fmt::format("{:<10} {:<26} {:<7} {:>9} {:>9} {:>8} {:>9} {:>9} {:>15} {:>8} {:<10} {}\n", "arch", "engine", "prec", "A",
                                "S", "N*", "resid", "crossover", "crossover CI", "LOO MAE", "weighting", "session");
  for (const Curve& c : curves) {
    const CurveFit& f = c.fit;
    const std::string ci = f.crossover_b ? fmt::format("{}–{}", num(f.crossover_ci_low_b, "{:.2f}"), num(f.crossover_ci_high_b, "{:.2f}")) : "—";
    out += fmt::format("{:<10} {:<26} {:<7} {:>9.3f} {:>9.3f} {:>8.3f} {:>9.3f} {:>9} {:>15} {:>8} {:<10} {}\n", c.key.gpu_arch, c.key.engine,
                       c.key.precision, f.params.a_pct, f.params.s_pct, f.params.n_star_b, f.resid_std_pct, num(f.crossover_b, "{:.3f}"), ci,
                       num(f.loo_mae_pct, "{:.3f}"), to_string(f.weighting), c.session_label);
  }
  return out;
}

}  // namespace ecocompute::data
