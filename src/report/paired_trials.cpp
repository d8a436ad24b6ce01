#include "report/paired_trials.hpp"

#include "util/median.hpp"
#include "util/statistics.hpp"

namespace ecocompute::report {

std::map<std::int64_t, DecodeFigures> decode_by_block(const EnergyReport& report) {
  std::map<std::int64_t, DecodeFigures> out;
  if (!report.trials) return out;
  for (const TrialReport& t : *report.trials) {
    if (t.status != "ok" || !t.decode) continue;
    DecodeFigures f;
    if (t.decode->energy_per_token_mj && *t.decode->energy_per_token_mj > 0.0) f.energy_per_token_mj = t.decode->energy_per_token_mj;
    if (t.decode->duration_s > 0.0 && t.decode->tokens > 0) {
      f.tokens_per_s = static_cast<double>(t.decode->tokens) / t.decode->duration_s;
    }
    out[t.block] = f;
  }
  return out;
}

PairedBlockDeltas paired_block_deltas(const EnergyReport& a, const EnergyReport& b) {
  const auto blocks_a = decode_by_block(a);
  PairedBlockDeltas out;
  for (const auto& [block, fb] : decode_by_block(b)) {
    const auto it = blocks_a.find(block);
    if (it == blocks_a.end()) continue;
    const DecodeFigures& fa = it->second;
    if (fa.energy_per_token_mj && fb.energy_per_token_mj) {
      out.energy_pct.push_back(delta_pct(*fb.energy_per_token_mj, *fa.energy_per_token_mj));
    }
    if (fa.tokens_per_s && fb.tokens_per_s) out.throughput_pct.push_back(delta_pct(*fb.tokens_per_s, *fa.tokens_per_s));
  }
  return out;
}

std::optional<double> median_decode_tokens_per_s(const EnergyReport& report) {
  std::vector<double> speeds;
  for (const auto& [block, f] : decode_by_block(report)) {
    if (f.tokens_per_s) speeds.push_back(*f.tokens_per_s);
  }
  return median(std::move(speeds));
}

}  // namespace ecocompute::report
