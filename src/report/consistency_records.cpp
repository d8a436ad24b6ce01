// Consistency of what a report says about its model, its quality probe, its date and its card.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/consistency_rules.hpp"
#include "util/precision.hpp"

namespace ecocompute::report {
namespace {

// No GPU draws more than this on average (the largest board powers are ~1.2 kW); a report without its
// card's power limit is held to it per accelerator.
constexpr double kAnyGpuWatts = 2000.0;
// A window's average can exceed the limit only by what the driver's enforcement lets through.
constexpr double kLimitAllowance = 1.25;

}  // namespace

void check_workload(const EnergyReport& report, Findings& found) {
  const Workload& w = report.workload;
  const auto stated = parse_precision(w.precision);
  if (w.gguf_type) {
    const auto type = parse_precision(*w.gguf_type);
    if (type && stated && stated->is_gguf() && type->name != stated->name) {
      found.add("workload.gguf_type", fmt::format("{}, but workload.precision is {}", *w.gguf_type, w.precision));
    }
    if (type && type->is_gguf() && w.precision_class && *w.precision_class != type->precision_class) {
      found.add("workload.precision_class",
                fmt::format("{}, but {} is {}", *w.precision_class, type->name, type->precision_class));
    }
  }
  if (w.n_params && *w.n_params > 0 && w.params_b && differ(*w.params_b, static_cast<double>(*w.n_params) / 1e9, 0.05)) {
    found.add("workload.params_b", fmt::format("{} billion, but workload.n_params is {} ({} billion)", num(*w.params_b),
                                               *w.n_params, num(static_cast<double>(*w.n_params) / 1e9)));
  }
  if (w.n_params && *w.n_params > 0 && w.model_size_bytes && w.bits_per_weight) {
    const double implied = static_cast<double>(*w.model_size_bytes) * 8.0 / static_cast<double>(*w.n_params);
    if (differ(*w.bits_per_weight, implied, 0.02)) {
      found.add("workload.bits_per_weight", fmt::format("{}, but model_size_bytes {} × 8 / n_params {} is {}", num(*w.bits_per_weight),
                                                        *w.model_size_bytes, *w.n_params, num(implied)));
    }
  }
}

void check_quality(const EnergyReport& report, Findings& found) {
  if (!report.quality) return;
  const QualitySection& q = *report.quality;
  if (q.value && q.fp16_value && *q.fp16_value > 0 && q.delta_vs_fp16_pct) {
    const double implied = (*q.value / *q.fp16_value - 1) * 100;
    if (differ(*q.delta_vs_fp16_pct, implied, 0.005, 0.05)) {
      found.add("quality.delta_vs_fp16_pct", fmt::format("{} %, but value {} against fp16_value {} is {} %", num(*q.delta_vs_fp16_pct),
                                                         num(*q.value), num(*q.fp16_value), num(implied)));
    }
  }
  if (q.metric == "perplexity" && q.value && *q.value > 0 && q.mean_nll && differ(*q.mean_nll, std::log(*q.value), 0.001, 1e-6)) {
    found.add("quality.mean_nll", fmt::format("{}, but a perplexity of {} is exp({})", num(*q.mean_nll), num(*q.value),
                                              num(std::log(*q.value))));
  }
}

void check_dates_and_power(const EnergyReport& report, Findings& found) {
  if (report.timestamp_utc && !is_valid_timestamp(*report.timestamp_utc)) {
    found.add("timestamp_utc", fmt::format("'{}' is not a date and time that exists (YYYY-MM-DDThh:mm:ssZ)",
                                           report.timestamp_utc->substr(0, 64)));
  }
  std::optional<double> limit;
  std::size_t cards = static_cast<std::size_t>(std::max(1, report.system_under_test.accelerator_count));
  if (report.environment) {
    limit = report.environment->power_limit_w;
    for (const SplitGpu& g : report.environment->gpus) {
      if (g.power_limit_w) limit = std::max(limit.value_or(0.0), *g.power_limit_w);
    }
    cards = std::max(cards, report.environment->gpus.size());
  }
  const double ceiling = limit ? *limit * static_cast<double>(cards) * kLimitAllowance : kAnyGpuWatts * static_cast<double>(cards);
  const std::string what = limit ? fmt::format("the card's power limit (environment.power_limit_w {} W × {} GPU{}, +25 %)", num(*limit),
                                               cards, cards == 1 ? "" : "s")
                                 : fmt::format("what any GPU draws ({} W × {} accelerator{})", num(kAnyGpuWatts), cards,
                                               cards == 1 ? "" : "s");
  const std::pair<const char*, std::optional<double>> powers[] = {
      {"results.avg_power_watts", report.results.avg_power_watts},
      {"results.decode.avg_power_w", report.results.decode ? report.results.decode->avg_power_w : std::nullopt}};
  for (const auto& [field, watts] : powers) {
    if (watts && *watts > ceiling) found.add(field, fmt::format("{} W, above {}", num(*watts), what));
  }
}

}  // namespace ecocompute::report
