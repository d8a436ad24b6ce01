// Consistency of the energy figures: results, phases, statistics and trials.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/consistency_rules.hpp"

namespace ecocompute::report {
namespace {

// Rounding of printed figures; a mean of per-trial ratios against a pooled ratio with unequal trial
// lengths is allowed the wider one.
constexpr double kPrinted = 0.005;
constexpr double kPooled = 0.02;

}  // namespace

bool differ(double a, double b, double relative, double absolute) noexcept {
  const double gap = std::abs(a - b);
  return gap > absolute && gap > relative * std::max(std::abs(a), std::abs(b));
}

std::string num(double v) { return fmt::format("{:.6g}", v); }

void check_results(const EnergyReport& report, Findings& found) {
  const Results& r = report.results;
  if (r.tokens_generated && *r.tokens_generated == 0 && r.energy_per_token_mj && *r.energy_per_token_mj > 0) {
    found.add("results.tokens_generated", fmt::format("0, but results.energy_per_token_mj is {} mJ: no token was generated to "
                                                      "spend it on", num(*r.energy_per_token_mj)));
  }
  if (r.total_energy_joules && r.tokens_generated && *r.tokens_generated > 0 && r.energy_per_token_mj) {
    const double implied = *r.energy_per_token_mj * static_cast<double>(*r.tokens_generated) / 1000.0;
    if (differ(*r.total_energy_joules, implied, kPooled)) {
      found.add("results.total_energy_joules",
                fmt::format("{} J, but energy_per_token_mj {} mJ × tokens_generated {} is {} J", num(*r.total_energy_joules),
                            num(*r.energy_per_token_mj), *r.tokens_generated, num(implied)));
    }
  }
  if (r.decode) {
    const PhaseSummary& d = *r.decode;
    if (r.tokens_generated && *r.tokens_generated != d.tokens) {
      found.add("results.tokens_generated", fmt::format("{}, but results.decode.tokens is {}", *r.tokens_generated, d.tokens));
    }
    if (r.total_energy_joules && d.energy_j && differ(*r.total_energy_joules, *d.energy_j, kPrinted)) {
      found.add("results.total_energy_joules",
                fmt::format("{} J, but results.decode.energy_j is {} J", num(*r.total_energy_joules), num(*d.energy_j)));
    }
    if (r.energy_per_token_mj && d.energy_per_token_mj && differ(*r.energy_per_token_mj, *d.energy_per_token_mj, kPooled)) {
      found.add("results.energy_per_token_mj", fmt::format("{} mJ, but results.decode.energy_per_token_mj is {} mJ",
                                                           num(*r.energy_per_token_mj), num(*d.energy_per_token_mj)));
    }
  }
  if (r.net_energy_per_token_mj && r.energy_per_token_mj && *r.net_energy_per_token_mj > *r.energy_per_token_mj * (1 + kPrinted)) {
    found.add("results.net_energy_per_token_mj",
              fmt::format("{} mJ, more than the gross results.energy_per_token_mj {} mJ it is taken from",
                          num(*r.net_energy_per_token_mj), num(*r.energy_per_token_mj)));
  }
  if (report.statistics && r.energy_per_token_mj && report.statistics->energy_per_token_mj.mean &&
      differ(*r.energy_per_token_mj, *report.statistics->energy_per_token_mj.mean, kPrinted)) {
    found.add("statistics.energy_per_token_mj.mean",
              fmt::format("{} mJ, but results.energy_per_token_mj is {} mJ", num(*report.statistics->energy_per_token_mj.mean),
                          num(*r.energy_per_token_mj)));
  }
}

void check_phases(const EnergyReport& report, Findings& found) {
  for (const auto& [name, phase] : {std::pair{"prefill", &report.results.prefill}, std::pair{"decode", &report.results.decode}}) {
    if (!*phase) continue;
    const PhaseSummary& p = **phase;
    const std::string field = fmt::format("results.{}.energy_per_token_mj", name);
    if (p.tokens == 0 && p.energy_per_token_mj && *p.energy_per_token_mj > 0) {
      found.add(field, fmt::format("{} mJ, but results.{}.tokens is 0", num(*p.energy_per_token_mj), name));
    } else if (p.tokens > 0 && p.energy_j && p.energy_per_token_mj) {
      const double implied = *p.energy_j / static_cast<double>(p.tokens) * 1000.0;
      if (differ(*p.energy_per_token_mj, implied, kPrinted)) {
        found.add(field, fmt::format("{} mJ, but energy_j {} J / tokens {} is {} mJ", num(*p.energy_per_token_mj),
                                     num(*p.energy_j), p.tokens, num(implied)));
      }
    }
  }
}

namespace {

void check_spread(const char* key, const std::optional<double>& mean, const std::optional<double>& sd,
                  const std::optional<double>& low, const std::optional<double>& high, Findings& found) {
  const std::string field = fmt::format("statistics.{}", key);
  if (low && high && *low > *high) {
    found.add(field + ".ci95_low", fmt::format("{} is above ci95_high {}: an interval runs from low to high", num(*low), num(*high)));
  } else if (low && high && mean && (*mean < *low - 1e-9 * std::abs(*low) || *mean > *high + 1e-9 * std::abs(*high))) {
    found.add(field + ".mean", fmt::format("{} lies outside its own 95 % interval [{}, {}]", num(*mean), num(*low), num(*high)));
  }
  if (sd && *sd < 0) found.add(field + ".sd", fmt::format("{} is negative", num(*sd)));
}

}  // namespace

void check_statistics(const EnergyReport& report, Findings& found) {
  if (!report.statistics) return;
  const Statistics& s = *report.statistics;
  const Spread& e = s.energy_per_token_mj;
  check_spread("energy_per_token_mj", e.mean, e.sd, e.ci95_low, e.ci95_high, found);
  if (e.cv_pct && e.sd && e.mean && *e.mean != 0 && differ(*e.cv_pct, *e.sd / std::abs(*e.mean) * 100, kPrinted, 1e-9)) {
    found.add("statistics.energy_per_token_mj.cv_pct", fmt::format("{} %, but sd {} / mean {} is {} %", num(*e.cv_pct), num(*e.sd),
                                                                   num(*e.mean), num(*e.sd / std::abs(*e.mean) * 100)));
  }
  if (s.throughput_tokens_per_s) {
    const Spread& t = *s.throughput_tokens_per_s;
    check_spread("throughput_tokens_per_s", t.mean, t.sd, t.ci95_low, t.ci95_high, found);
  }
  const PairedDelta& d = s.vs_fp16_energy_pct;
  check_spread("vs_fp16_energy_pct", d.mean, d.sd, d.ci95_low, d.ci95_high, found);
  if (d.n_pairs > s.n_trials) {
    found.add("statistics.vs_fp16_energy_pct.n_pairs", fmt::format("{}, more than the {} valid trials (statistics.n_trials) "
                                                                   "it pairs", d.n_pairs, s.n_trials));
  }
  if (s.n_trials < 0 || s.n_failed < 0) {
    found.add("statistics.n_trials", fmt::format("n_trials {} and n_failed {} must not be negative", s.n_trials, s.n_failed));
  }
  if (const auto& k = report.measurement.trials_per_precision; k && s.n_trials + s.n_failed > *k) {
    found.add("statistics.n_failed", fmt::format("{} failed and {} valid trials, more than the {} trials per precision "
                                                 "(measurement.trials_per_precision)", s.n_failed, s.n_trials, *k));
  }
}

void check_trials(const EnergyReport& report, Findings& found) {
  if (!report.trials) return;
  const auto listed = static_cast<std::int64_t>(report.trials->size());
  if (report.statistics) {
    const Statistics& s = *report.statistics;
    const std::int64_t counted = s.n_trials + s.n_failed + s.n_cancelled.value_or(0);
    if (listed != counted) {
      found.add("trials", fmt::format("{} trial{} listed, but statistics counts {} (n_trials {} + n_failed {} + n_cancelled {})",
                                      listed, listed == 1 ? "" : "s", counted, s.n_trials, s.n_failed, s.n_cancelled.value_or(0)));
    }
  }
  for (std::size_t i = 0; i < report.trials->size(); ++i) {
    const TrialReport& t = (*report.trials)[i];
    for (const auto& [name, window] : {std::pair{"prefill", &t.prefill}, std::pair{"decode", &t.decode}}) {
      if (!*window) continue;
      const WindowReport& w = **window;
      if (w.tokens > 0 && w.energy_j && w.energy_per_token_mj &&
          differ(*w.energy_per_token_mj, *w.energy_j / static_cast<double>(w.tokens) * 1000.0, kPrinted)) {
        found.add(fmt::format("trials[{}].{}.energy_per_token_mj", i, name),
                  fmt::format("{} mJ, but energy_j {} J / tokens {} is {} mJ", num(*w.energy_per_token_mj), num(*w.energy_j), w.tokens,
                              num(*w.energy_j / static_cast<double>(w.tokens) * 1000.0)));
      }
      if (w.duration_s > 0 && w.energy_j && w.avg_power_w && differ(*w.avg_power_w, *w.energy_j / w.duration_s, kPrinted)) {
        found.add(fmt::format("trials[{}].{}.avg_power_w", i, name),
                  fmt::format("{} W, but energy_j {} J / duration_s {} s is {} W", num(*w.avg_power_w), num(*w.energy_j),
                              num(w.duration_s), num(*w.energy_j / w.duration_s)));
      }
    }
  }
}

}  // namespace ecocompute::report
