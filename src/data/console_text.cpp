// Terminal renderings.
#include "data/console_text.hpp"

#include <fmt/format.h>

namespace ecocompute::data {
namespace {

std::string pct(const std::optional<double>& v) { return v ? fmt::format("{:+.2f} %", *v) : "—"; }
std::string num(const std::optional<double>& v, const char* f = "{:.3g}") {
  return v ? fmt::format(fmt::runtime(f), *v) : "—";
}

std::string candidate_line(const Candidate& c) {
  return fmt::format("{:<7} batch {:>3} ctx {:>6}  ΔE {:>10}  energy {:>9} mJ/token [{}]  {:>8.2f} ms/token  {:>9.1f} tok/s  "
                     "[modelled]  {:>6.1f} GB [modelled]  ΔPPL {}{}",
                     c.precision, c.batch, c.context, pct(c.delta_pct), num(c.energy_mj_per_token, "{:.1f}"),
                     to_string(c.energy_basis.basis), c.latency_ms_per_token, c.throughput_tok_s, c.vram_gb, pct(c.delta_ppl_pct),
                     c.violations.empty() ? "" : "  ✗ " + fmt::format("{}", fmt::join(c.violations, "; ")));
}

std::string basis_line(const char* what, const FigureBasis& b) {
  return fmt::format("  {} basis: {} — {}\n", what, to_string(b.basis), b.label);
}

}  // namespace

std::string to_text(const EstimateResponse& r) {
  std::string out = r.verdict + "\n";
  out += fmt::format("  ΔE vs FP16: {}  95 % CI: {}  (±{:.1f} pts: {})\n", pct(r.delta_pct),
                     r.ci_low_pct ? fmt::format("{} … {}", pct(r.ci_low_pct), pct(r.ci_high_pct)) : "none", r.band.half_width,
                     r.ci_kind.empty() ? "no within-session band" : r.ci_kind);
  out += basis_line("ΔE", r.delta_basis);
  out += fmt::format("  band terms (95 % half-widths, pts): within session {}, between sessions {}, extrapolation {:.1f}, borrowing {:.1f}, "
                     "batch model {:.1f}\n",
                     num(r.band.within_session, "{:.1f}"), num(r.band.between_sessions, "{:.1f}"), r.band.extrapolation, r.band.borrowing,
                     r.band.batch_model);
  out += fmt::format("  confidence: {}   recommendation: {}\n", r.confidence, r.recommendation);
  out += fmt::format("  architecture used: {}   engine: {}   crossover: {}\n", r.arch_used, r.engine,
                     r.crossover_b ? fmt::format("{:.2f} B", *r.crossover_b) : "none supported by the data");
  out += fmt::format("  weights: {:.2f} GB (FP16 {:.2f} GB) [modelled: N × bits per weight]\n", r.weight_gb, r.weight_gb_fp16);
  if (r.energy_estimate) {
    const EnergyEstimate& e = *r.energy_estimate;
    out += fmt::format("  energy per token: {:.0f} mJ{} (FP16 {:.0f} mJ; {})\n", e.mj_per_token,
                       e.low_mj_per_token ? fmt::format(" (95 % {:.0f} … {:.0f})", *e.low_mj_per_token, *e.high_mj_per_token) : "",
                       e.fp16_mj_per_token, e.method);
    out += basis_line("energy", e.basis);
    out += basis_line("FP16 energy", e.fp16_basis);
  }
  if (r.quality_cost) out += "  quality: " + r.quality_cost->note + " [" + std::string(to_string(r.quality_cost->basis.basis)) + "]\n";
  for (const Anchor& a : r.anchors) {
    out += fmt::format("  anchor: {:g} B {:>9} n={} {} ({}, {})\n", a.params_b, pct(a.delta_pct), a.n, a.model, a.gpu, a.session);
  }
  for (const std::string& n : r.notes) out += "  note: " + n + "\n";
  return out;
}

std::string to_text(const OptimizeResponse& r) {
  std::string out;
  if (r.recommended) {
    out += "recommended: " + candidate_line(*r.recommended) + "\n";
    out += basis_line("energy", r.recommended->energy_basis);
    out += basis_line("latency", r.recommended->latency_basis);
    out += basis_line("memory", r.recommended->vram_basis);
  } else {
    out += "recommended: none (no candidate meets every constraint)\n";
  }
  out += fmt::format("feasible candidates: {}\n", r.feasible_count);
  if (r.best_unmodelled) out += "best whose energy is not modelled: " + candidate_line(*r.best_unmodelled) + "\n";
  if (r.closest_infeasible) out += "closest infeasible: " + candidate_line(*r.closest_infeasible) + "\n";
  for (const Candidate& c : r.alternatives) out += "alternative: " + candidate_line(c) + "\n";
  for (const Candidate& c : r.pareto_energy_latency) out += "pareto: " + candidate_line(c) + "\n";
  for (const std::string& n : r.notes) out += "note: " + n + "\n";
  return out;
}

std::string to_text(const ImportSummary& s) {
  std::string out = fmt::format("{}: {} sessions and {} rows added, {} already present, {} flagged\n", s.source, s.sessions_added,
                                s.rows_added, s.rows_already_present, s.rows_flagged);
  for (const std::string& n : s.notes) out += "  note: " + n + "\n";
  return out;
}

std::string sessions_table(const std::vector<Session>& sessions, const std::vector<DataRow>& rows) {
  std::string out = fmt::format("{:<16} {:<26} {:<10} {:<10} {:<26} {:>5}  {}\n", "id", "label", "gpu", "arch", "engine", "rows",
                                "provenance");
  for (const Session& s : sessions) {
    int n = 0;
    for (const DataRow& r : rows) n += r.session_id == s.id ? 1 : 0;
    out += fmt::format("{:<16} {:<26} {:<10} {:<10} {:<26} {:>5}  {}\n", s.id, s.label, s.gpu, s.gpu_arch, s.engine, n, s.provenance);
  }
  return out;
}

std::string session_text(const Session& s, const std::vector<DataRow>& rows) {
  std::string out = fmt::format("session {} ({})\n  gpu: {} ({})\n  engine: {} {}\n  software: {}\n  date: {}\n  provenance: {}\n"
                                "  fingerprint: {}\n",
                                s.label, s.id, s.gpu, s.gpu_arch, s.engine, s.engine_version, s.software.empty() ? "(not published)" : s.software,
                                s.date.empty() ? "(unknown)" : s.date, s.provenance, s.fingerprint);
  out += fmt::format("{:<40} {:>6} {:<7} {:>10} {:>10} {:>10} {:>10} {:>3} {:>8} {}\n", "model", "size", "prec", "E mJ/tok", "FP16",
                     "ΔE", "stored", "n", "E vs P/T", "basis");
  for (const DataRow& r : rows) {
    out += fmt::format("{:<40} {:>5g}B {:<7} {:>10.1f} {:>10.1f} {:>10} {:>10} {:>3} {:>8} {}{}\n", r.model, r.params_b, r.precision,
                       r.energy_per_token_mj, r.fp16_energy_per_token_mj, pct(r.delta_pct()), pct(r.stored_delta_pct), r.n_trials,
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
