#include "protocol/serving_statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>

#include <fmt/format.h>

namespace ecocompute::protocol {
namespace {

std::optional<double> ratio(std::optional<Joules> energy, double per, double scale) {
  if (!energy || per <= 0.0) return std::nullopt;
  return energy->value / per * scale;
}

double quantile(const std::vector<double>& sorted, double q) {
  const double position = q * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

Summary summarize_present(const std::vector<std::optional<double>>& values, double confidence) {
  std::vector<double> present;
  for (const auto& v : values) {
    if (v) present.push_back(*v);
  }
  return summarize(present, confidence);
}

// x where the line through (x0, y0) and (x1, y1) is 0.
double zero_crossing(double x0, double y0, double x1, double y1) { return x0 + (0.0 - y0) / (y1 - y0) * (x1 - x0); }

// The first crossing of zero (from below when `upward`) of a piecewise-linear curve in log2 levels;
// `below_at_start` says the curve is already past zero at the first level.
std::optional<double> first_crossing(std::span<const int> levels, const std::vector<double>& y, bool upward) {
  for (std::size_t i = 0; i + 1 < levels.size(); ++i) {
    const bool before = upward ? y[i] < 0.0 : y[i] >= 0.0;
    const bool after = upward ? y[i + 1] >= 0.0 : y[i + 1] < 0.0;
    if (before && after) {
      return std::exp2(zero_crossing(std::log2(levels[i]), y[i], std::log2(levels[i + 1]), y[i + 1]));
    }
  }
  return std::nullopt;
}

// The crossing's interval by simulation (BreakEven's comment); false when a level has no SD.
bool simulate_crossing_interval(std::span<const int> levels, std::span<const Summary> deltas, bool upward,
                                BreakEven& out) {
  const double confidence = deltas.front().confidence;
  std::vector<double> scale;
  std::vector<std::student_t_distribution<double>> t;
  for (const Summary& s : deltas) {
    if (s.n < 2 || !s.sd) return false;
    scale.push_back(*s.sd / std::sqrt(static_cast<double>(s.n)));
    t.emplace_back(static_cast<double>(s.n - 1));
  }
  constexpr double kBelow = -std::numeric_limits<double>::infinity();
  constexpr double kBeyond = std::numeric_limits<double>::infinity();
  std::mt19937_64 random(0x5e55107ULL);
  std::vector<double> crossings;
  crossings.reserve(kBreakEvenDraws);
  std::vector<double> draw(deltas.size());
  for (int d = 0; d < kBreakEvenDraws; ++d) {
    for (std::size_t i = 0; i < deltas.size(); ++i) draw[i] = deltas[i].mean + t[i](random) * scale[i];
    const bool past_at_start = upward ? draw.front() >= 0.0 : draw.front() < 0.0;
    if (past_at_start) {
      crossings.push_back(kBelow);
    } else {
      crossings.push_back(first_crossing(levels, draw, upward).value_or(kBeyond));
    }
  }
  std::sort(crossings.begin(), crossings.end());
  // Nearest rank: the infinities stand for "outside the levels" and must not be interpolated.
  const auto at = [&](double q) {
    return crossings[static_cast<std::size_t>(std::lround(q * static_cast<double>(crossings.size() - 1)))];
  };
  const double alpha = 1.0 - confidence;
  const double lo = at(alpha / 2.0);
  const double hi = at(1.0 - alpha / 2.0);
  out.ci_available = true;
  if (std::isfinite(lo)) out.ci_low = lo;
  if (std::isfinite(hi)) out.ci_high = hi;
  return true;
}

}  // namespace

ServingTrialFigures trial_figures(const LevelRun& run) {
  ServingTrialFigures f;
  const auto window_energy = run.steady.energy();
  f.window_mj_per_token = ratio(window_energy, run.steady.tokens, 1000.0);
  if (run.steady.usable() && run.steady.duration().value > 0.0) {
    f.window_tokens_per_s = run.steady.tokens / run.steady.duration().value;
    if (window_energy) f.window_avg_power_w = window_energy->value / run.steady.duration().value;
  }
  const auto whole_energy = run.whole.energy();
  f.whole_mj_per_token = ratio(whole_energy, run.whole.tokens, 1000.0);
  std::int64_t ok = 0;
  double prompt_tokens = 0.0;
  for (const auto& r : run.records) {
    ok += r.ok ? 1 : 0;
    if (r.ok) prompt_tokens += static_cast<double>(r.prompt_tokens);
  }
  f.joules_per_request = ratio(whole_energy, static_cast<double>(ok), 1.0);
  f.whole_mj_per_total_token = ratio(whole_energy, run.whole.tokens + prompt_tokens, 1000.0);
  if (run.whole.usable() && run.whole.duration().value > 0.0) {
    f.whole_tokens_per_s = run.whole.tokens / run.whole.duration().value;
  }
  return f;
}

Percentiles percentiles(std::vector<double> values) {
  Percentiles p;
  p.n = values.size();
  if (values.empty()) return p;
  std::sort(values.begin(), values.end());
  p.p50 = quantile(values, 0.50);
  p.p90 = quantile(values, 0.90);
  p.p99 = quantile(values, 0.99);
  return p;
}

ServingPaired paired_at_level(std::span<const LevelRun> runs, std::size_t candidate, int concurrency,
                              double confidence) {
  ServingPaired p;
  p.candidate = candidate;
  p.concurrency = concurrency;
  std::map<int, double> baseline;
  for (const LevelRun& r : runs) {
    if (r.endpoint == 0 && r.concurrency == concurrency && r.is_ok()) {
      if (auto v = trial_figures(r).window_mj_per_token) baseline[r.block] = *v;
    }
  }
  for (const LevelRun& r : runs) {
    if (r.endpoint != candidate || r.concurrency != concurrency || !r.is_ok()) continue;
    const auto v = trial_figures(r).window_mj_per_token;
    const auto b = baseline.find(r.block);
    if (v && b != baseline.end() && b->second > 0.0) p.deltas_pct.push_back(delta_pct(*v, b->second));
  }
  p.delta_pct = summarize(p.deltas_pct, confidence);
  return p;
}

const ServingLevelSummary* ServingAnalysis::find(std::size_t endpoint, int concurrency) const {
  for (const auto& l : levels) {
    if (l.endpoint == endpoint && l.concurrency == concurrency) return &l;
  }
  return nullptr;
}

const ServingPaired* ServingAnalysis::find_paired(std::size_t candidate, int concurrency) const {
  for (const auto& p : paired) {
    if (p.candidate == candidate && p.concurrency == concurrency) return &p;
  }
  return nullptr;
}

BreakEven find_break_even(std::span<const int> levels, std::span<const Summary> deltas) {
  BreakEven out;
  std::vector<double> mean, low, high;
  for (const Summary& s : deltas) {
    mean.push_back(s.mean);
    low.push_back(s.ci_low.value_or(s.mean));
    high.push_back(s.ci_high.value_or(s.mean));
  }
  if (levels.size() < 2) {
    out.note = "none in the range (one level: nothing to interpolate)";
    return out;
  }
  const auto up = first_crossing(levels, mean, true);
  const auto down = first_crossing(levels, mean, false);
  const bool upward = up && (!down || *up <= *down);
  const auto crossing = upward ? up : down;
  if (!crossing) {
    out.note = fmt::format("none in the range {}…{}: the mean paired ΔE keeps its sign ({})", levels.front(),
                           levels.back(), mean.front() < 0.0 ? "saves at every level" : "costs at every level");
    return out;
  }
  out.crosses = true;
  out.direction = upward ? "stops_saving" : "starts_saving";
  out.concurrency = crossing;
  // Going up, the upper CI limit reaches zero first and the lower one last; going down, the reverse.
  const std::vector<double>& early = upward ? high : low;
  const std::vector<double>& late = upward ? low : high;
  const bool early_past_at_start = upward ? early.front() >= 0.0 : early.front() < 0.0;
  out.low = early_past_at_start ? std::optional<double>(levels.front()) : first_crossing(levels, early, upward);
  out.high = first_crossing(levels, late, upward);
  out.note = fmt::format(
      "ΔE {} zero at concurrency ≈ {:.3g} (linear in log2 concurrency between measured levels); range {} … {} "
      "from where the level CIs cross zero (not a confidence interval of the crossing)",
      upward ? "rises through" : "falls through", *crossing,
      out.low ? fmt::format("{:.3g}{}", *out.low, early_past_at_start ? " (at or below the lowest level)" : "")
              : std::string("?"),
      out.high ? fmt::format("{:.3g}", *out.high) : std::string("beyond the highest level"));
  if (simulate_crossing_interval(levels, deltas, upward, out)) {
    out.note += fmt::format(
        "; {:.0f} % CI of the crossing {} … {} ({} sweeps drawn from the levels' Student-t distributions)",
        deltas.front().confidence * 100.0,
        out.ci_low ? fmt::format("{:.3g}", *out.ci_low) : fmt::format("≤ {} (at or below the lowest level)", levels.front()),
        out.ci_high ? fmt::format("{:.3g}", *out.ci_high) : fmt::format("> {} (beyond the highest level)", levels.back()),
        kBreakEvenDraws);
  } else {
    out.note += "; no CI of the crossing (a level has fewer than 2 paired blocks)";
  }
  return out;
}

std::vector<BreakEven> find_crossings(std::span<const int> levels, std::span<const Summary> deltas) {
  std::vector<BreakEven> out;
  std::size_t start = 0;
  while (true) {
    BreakEven b = find_break_even(levels.subspan(start), deltas.subspan(start));
    if (!b.crosses) {
      if (out.empty()) out.push_back(std::move(b));
      return out;
    }
    if (!out.empty()) {
      b.note = fmt::format("after the crossing at ≈ {:.3g}, on levels {}…{}: {}", *out.back().concurrency, levels[start],
                           levels.back(), b.note);
    }
    const double at = *b.concurrency;
    out.push_back(std::move(b));
    std::size_t next = start + 1;
    while (next < levels.size() && levels[next] < at) ++next;
    if (levels.size() - next < 2) return out;
    start = next;
  }
}

std::optional<FirstBlock> first_block_against_later(std::span<const std::pair<int, ServingTrialFigures>> by_block) {
  const ServingTrialFigures* first = nullptr;
  std::vector<const ServingTrialFigures*> later;
  for (const auto& [block, figures] : by_block) {
    if (!figures.window_mj_per_token) continue;
    if (block == 0) first = &figures;
    else later.push_back(&figures);
  }
  if (first == nullptr || later.empty()) return std::nullopt;
  const auto mean_of = [&](auto field) -> std::optional<double> {
    double sum = 0.0;
    for (const ServingTrialFigures* f : later) {
      if (!(f->*field)) return std::nullopt;
      sum += *(f->*field);
    }
    return sum / static_cast<double>(later.size());
  };
  FirstBlock out;
  out.later = later.size();
  out.energy_pct = (*first->window_mj_per_token / *mean_of(&ServingTrialFigures::window_mj_per_token) - 1.0) * 100.0;
  if (const auto rate = mean_of(&ServingTrialFigures::window_tokens_per_s); rate && first->window_tokens_per_s && *rate > 0.0) {
    out.throughput_pct = (*first->window_tokens_per_s / *rate - 1.0) * 100.0;
  }
  out.above_every_later = std::all_of(later.begin(), later.end(), [&](const ServingTrialFigures* f) {
    return *first->window_mj_per_token > *f->window_mj_per_token;
  });
  return out;
}

ServingAnalysis analyze_serving(std::span<const LevelRun> runs, std::size_t n_endpoints, double confidence) {
  ServingAnalysis analysis;
  analysis.confidence = confidence;
  std::vector<int> levels;
  for (const LevelRun& r : runs) levels.push_back(r.concurrency);
  std::sort(levels.begin(), levels.end());
  levels.erase(std::unique(levels.begin(), levels.end()), levels.end());

  for (std::size_t e = 0; e < n_endpoints; ++e) {
    for (int c : levels) {
      ServingLevelSummary s;
      s.endpoint = e;
      s.concurrency = c;
      std::vector<std::optional<double>> window, whole, per_request, per_total_token, power, rate;
      std::vector<double> ttft, itl;
      std::vector<std::pair<int, ServingTrialFigures>> by_block;
      std::map<std::string, std::int64_t> reasons;
      double window_tokens = 0.0, whole_tokens = 0.0;
      for (const LevelRun& r : runs) {
        if (r.endpoint != e || r.concurrency != c) continue;
        s.label = r.label;
        ++s.n_trials;
        s.level_warmup_sent += r.level_warmup_sent;
        s.level_warmup_failed += r.level_warmup_failed;
        for (const auto& record : r.records) {
          if (record.ok) {
            ++s.requests_ok;
          } else if (sent_and_failed(record)) {
            ++s.requests_failed;
            ++reasons[record.failure];
          }
        }
        if (!r.is_ok()) {
          s.failures.push_back(fmt::format("block {}: {}", r.block + 1, r.reason()));
          continue;
        }
        ++s.n_ok;
        const ServingTrialFigures f = trial_figures(r);
        by_block.emplace_back(r.block, f);
        window.push_back(f.window_mj_per_token);
        whole.push_back(f.whole_mj_per_token);
        per_request.push_back(f.joules_per_request);
        per_total_token.push_back(f.whole_mj_per_total_token);
        power.push_back(f.window_avg_power_w);
        rate.push_back(f.window_tokens_per_s);
        window_tokens += r.steady.tokens;
        whole_tokens += r.whole.tokens;
        for (const auto& record : r.records) {
          if (auto t = record.time_to_first_token()) ttft.push_back(t->value);
          for (double gap : record.inter_token_latencies_s()) itl.push_back(gap);
        }
      }
      if (s.n_trials == 0) continue;
      s.request_failures.assign(reasons.begin(), reasons.end());
      std::stable_sort(s.request_failures.begin(), s.request_failures.end(),
                       [](const auto& a, const auto& b) { return a.second > b.second; });
      if (s.request_failures.size() > 5) s.request_failures.resize(5);
      s.window_tokens = std::llround(window_tokens);
      s.whole_tokens = std::llround(whole_tokens);
      s.window_mj_per_token = summarize_present(window, confidence);
      s.whole_mj_per_token = summarize_present(whole, confidence);
      s.joules_per_request = summarize_present(per_request, confidence);
      s.whole_mj_per_total_token = summarize_present(per_total_token, confidence);
      s.window_avg_power_w = summarize_present(power, confidence);
      s.window_tokens_per_s = summarize_present(rate, confidence);
      s.ttft_s = percentiles(std::move(ttft));
      s.itl_s = percentiles(std::move(itl));
      s.first_block = first_block_against_later(by_block);
      analysis.levels.push_back(std::move(s));
    }
  }

  for (std::size_t e = 1; e < n_endpoints; ++e) {
    std::vector<int> crossing_levels;
    std::vector<Summary> crossing_deltas;
    for (int c : levels) {
      ServingPaired p = paired_at_level(runs, e, c, confidence);
      if (p.delta_pct.n > 0) {
        crossing_levels.push_back(c);
        crossing_deltas.push_back(p.delta_pct);
      }
      analysis.paired.push_back(std::move(p));
    }
    std::vector<BreakEven> crossings = find_crossings(crossing_levels, crossing_deltas);
    for (BreakEven& b : crossings) b.candidate = e;
    if (crossing_levels.empty()) crossings.front().note = "no paired ΔE at any level (no energy measured, or no ok trial pairs)";
    analysis.break_even.push_back(std::move(crossings.front()));
    for (std::size_t i = 1; i < crossings.size(); ++i) analysis.later_crossings.push_back(std::move(crossings[i]));
  }
  return analysis;
}

}  // namespace ecocompute::protocol
