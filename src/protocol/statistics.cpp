// Trial statistics: the metric table, per-condition summaries and paired ΔE % (intervals from util).
#include "protocol/statistics.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "util/median.hpp"
#include "util/check.hpp"

namespace ecocompute::protocol {

namespace {

using WindowMember = std::optional<WindowResult> TrialResult::*;

template <typename Getter>
TrialMetric window_metric(std::string_view name, std::string_view unit, WindowMember window, Getter get) {
  return TrialMetric{name, unit, [window, get](const TrialResult& trial) -> std::optional<double> {
                       const std::optional<WindowResult>& w = trial.*window;
                       if (!w) return std::nullopt;
                       return get(*w);
                     }};
}

std::vector<TrialMetric> make_metrics() {
  std::vector<TrialMetric> metrics;
  const std::pair<std::string_view, WindowMember> windows[] = {{"prefill", &TrialResult::prefill},
                                                               {"decode", &TrialResult::decode}};
  // Names are static strings: the table lives for the whole program.
  static const std::string_view names[2][9] = {
      {"prefill_energy_per_token_gross_mj", "prefill_energy_per_token_net_mj", "prefill_energy_gross_j",
       "prefill_energy_net_j", "prefill_throughput_tokens_per_s", "prefill_avg_power_w",
       "prefill_duration_s", "prefill_edge_uncertainty_pct", "prefill_tokens"},
      {"decode_energy_per_token_gross_mj", "decode_energy_per_token_net_mj", "decode_energy_gross_j",
       "decode_energy_net_j", "decode_throughput_tokens_per_s", "decode_avg_power_w", "decode_duration_s",
       "decode_edge_uncertainty_pct", "decode_tokens"}};
  for (int k = 0; k < 2; ++k) {
    const WindowMember member = windows[k].second;
    const std::string_view* n = names[k];
    metrics.push_back(window_metric(n[0], "mJ/token", member,
                                    [](const WindowResult& w) { return w.energy_per_token_gross_mj(); }));
    metrics.push_back(window_metric(n[1], "mJ/token", member,
                                    [](const WindowResult& w) { return w.energy_per_token_net_mj(); }));
    metrics.push_back(window_metric(n[2], "J", member, [](const WindowResult& w) -> std::optional<double> {
      if (!w.energy_gross) return std::nullopt;
      return w.energy_gross->value;
    }));
    metrics.push_back(window_metric(n[3], "J", member, [](const WindowResult& w) -> std::optional<double> {
      if (!w.energy_net) return std::nullopt;
      return w.energy_net->value;
    }));
    metrics.push_back(window_metric(n[4], "tokens/s", member,
                                    [](const WindowResult& w) { return w.throughput_tokens_per_s(); }));
    metrics.push_back(window_metric(n[5], "W", member, [](const WindowResult& w) -> std::optional<double> {
      const std::optional<Watts> p = w.average_power();
      if (!p) return std::nullopt;
      return p->value;
    }));
    metrics.push_back(window_metric(n[6], "s", member, [](const WindowResult& w) -> std::optional<double> {
      return w.measurement.duration.value;
    }));
    metrics.push_back(window_metric(n[7], "%", member,
                                    [](const WindowResult& w) { return w.edge_uncertainty_pct(); }));
    metrics.push_back(window_metric(n[8], "tokens", member, [](const WindowResult& w) -> std::optional<double> {
      return static_cast<double>(w.tokens);
    }));
  }
  return metrics;
}

}  // namespace

const std::vector<TrialMetric>& trial_metrics() {
  static const std::vector<TrialMetric> metrics = make_metrics();
  return metrics;
}

const TrialMetric* find_trial_metric(std::string_view name) {
  for (const TrialMetric& metric : trial_metrics()) {
    if (metric.name == name) return &metric;
  }
  return nullptr;
}

const std::vector<std::string_view>& paired_metric_names() {
  static const std::vector<std::string_view> names{
      "decode_energy_per_token_gross_mj", "decode_energy_per_token_net_mj",
      "prefill_energy_per_token_gross_mj", "prefill_energy_per_token_net_mj"};
  return names;
}

const MetricSummary* ConditionSummary::find(std::string_view name) const {
  for (const MetricSummary& metric : metrics) {
    if (metric.name == name) return &metric;
  }
  return nullptr;
}

std::vector<ConditionSummary> summarize_conditions(std::span<const Condition> conditions,
                                                   std::span<const TrialResult> trials) {
  std::vector<ConditionSummary> summaries;
  for (const Condition& condition : conditions) {
    ConditionSummary summary;
    summary.condition = condition.index;
    summary.precision = condition.precision;
    for (const TrialResult& trial : trials) {
      if (trial.condition != condition.index) continue;
      ++summary.n_trials;
      if (trial.is_ok()) ++summary.n_ok;
    }
    for (const TrialMetric& metric : trial_metrics()) {
      std::vector<double> values;
      for (const TrialResult& trial : trials) {
        if (trial.condition != condition.index || !trial.is_ok()) continue;
        if (std::optional<double> v = metric.value(trial)) values.push_back(*v);
      }
      if (values.empty()) continue;
      summary.metrics.push_back(MetricSummary{std::string(metric.name), std::string(metric.unit), summarize(values)});
    }
    summaries.push_back(std::move(summary));
  }
  return summaries;
}

std::vector<PairedComparison> compare_paired(std::span<const Condition> conditions,
                                             std::span<const TrialResult> trials, double confidence) {
  std::vector<PairedComparison> comparisons;
  for (const Condition& candidate : conditions) {
    if (candidate.is_baseline) continue;
    const auto baseline = std::find_if(conditions.begin(), conditions.end(), [&](const Condition& c) {
      return c.is_baseline && c.prompt_tokens == candidate.prompt_tokens && c.batch == candidate.batch;
    });
    if (baseline == conditions.end()) continue;
    for (std::string_view name : paired_metric_names()) {
      const TrialMetric* metric = find_trial_metric(name);
      ECO_CHECK(metric != nullptr, "paired metric missing from the table");
      PairedComparison comparison;
      comparison.condition = candidate.index;
      comparison.baseline_condition = baseline->index;
      comparison.precision = candidate.precision;
      comparison.baseline_precision = baseline->precision;
      comparison.metric = std::string(name);
      for (const TrialResult& c : trials) {
        if (c.condition != candidate.index || !c.is_ok()) continue;
        const auto b = std::find_if(trials.begin(), trials.end(), [&](const TrialResult& t) {
          return t.condition == baseline->index && t.block == c.block;
        });
        if (b == trials.end() || !b->is_ok()) continue;
        const std::optional<double> cv = metric->value(c);
        const std::optional<double> bv = metric->value(*b);
        // A ratio needs a positive reference; a net energy at or below zero (idle above gross)
        // is a broken window, not a reference.
        if (!cv || !bv || *bv <= 0.0) continue;
        comparison.pairs.push_back(Pair{c.block, c.index, b->index, *cv, *bv, delta_pct(*cv, *bv)});
      }
      std::sort(comparison.pairs.begin(), comparison.pairs.end(),
                [](const Pair& x, const Pair& y) { return x.block < y.block; });
      std::vector<double> deltas;
      for (const Pair& pair : comparison.pairs) deltas.push_back(pair.delta_pct);
      comparison.delta_pct = summarize(deltas, confidence);
      comparisons.push_back(std::move(comparison));
    }
  }
  return comparisons;
}

std::vector<std::string> throughput_outliers(std::span<const Condition> conditions,
                                             std::span<const TrialResult> trials, double fraction) {
  std::vector<std::string> warnings;
  for (const Condition& condition : conditions) {
    std::vector<std::pair<const TrialResult*, double>> rates;
    for (const TrialResult& t : trials) {
      if (t.condition != condition.index || !t.is_ok() || !t.decode) continue;
      if (auto rate = t.decode->throughput_tokens_per_s()) rates.emplace_back(&t, *rate);
    }
    if (rates.size() < 3) continue;
    std::vector<double> values;
    for (const auto& [trial, rate] : rates) values.push_back(rate);
    const double median = ecocompute::median(std::move(values)).value_or(0.0);
    for (const auto& [trial, rate] : rates) {
      if (median > 0.0 && std::abs(rate - median) > fraction * median) {
        warnings.push_back(fmt::format(
            "trial {} ({} #{}): decode {:.1f} tok/s is {:+.0f} % from its condition's median {:.1f} tok/s; an outlier "
            "(other load on the machine, a clock change?) that moves the mean",
            trial->index + 1, condition.label(), trial->repetition + 1, rate, (rate - median) / median * 100.0, median));
      }
    }
  }
  return warnings;
}

}  // namespace ecocompute::protocol
