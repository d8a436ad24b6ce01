// Design: precisions, expansion into conditions, and validation with errors that name the field.
#include "protocol/design.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "util/statistics.hpp"

namespace ecocompute::protocol {

std::string_view to_string(ScheduleOrder order) noexcept {
  switch (order) {
    case ScheduleOrder::alternating: return "alternating";
    case ScheduleOrder::shuffled: return "shuffled";
  }
  return "unknown";
}

Result<ScheduleOrder> parse_schedule_order(std::string_view text) {
  if (text == "alternating") return ScheduleOrder::alternating;
  if (text == "shuffled") return ScheduleOrder::shuffled;
  return unexpected(ErrorCode::invalid_argument,
                    fmt::format("order: '{}' is not a schedule order (alternating, shuffled)", text));
}

std::string_view to_string(TrialWarmup warmup) noexcept {
  return warmup == TrialWarmup::on_change ? "change" : "every";
}

Result<TrialWarmup> parse_trial_warmup(std::string_view text) {
  if (text == "every") return TrialWarmup::every_trial;
  if (text == "change") return TrialWarmup::on_change;
  return unexpected(ErrorCode::invalid_argument,
                    fmt::format("trial warm-up: '{}' is not 'every' or 'change'", text));
}

bool Design::prefill_windows_at(int batch) const {
  return prefill_at_every_batch || batches.empty() || batch == batches.front();
}

std::vector<std::string> Design::precisions() const {
  std::vector<std::string> all{baseline};
  all.insert(all.end(), candidates.begin(), candidates.end());
  return all;
}

int Design::max_batch() const {
  return batches.empty() ? 1 : *std::max_element(batches.begin(), batches.end());
}

std::vector<Condition> Design::expand() const {
  std::vector<std::int64_t> lengths = prompt.lengths_tokens;
  if (lengths.empty()) lengths.push_back(0);
  std::vector<int> levels = batches;
  if (levels.empty()) levels.push_back(1);
  const bool batch_is_level = levels.size() > 1;
  std::vector<Condition> conditions;
  for (const std::string& precision : precisions()) {
    for (std::int64_t length : lengths) {
      for (int batch : levels) {
        conditions.push_back(Condition{conditions.size(), precision, precision == baseline, length, batch, batch_is_level});
      }
    }
  }
  return conditions;
}

namespace {

Error invalid(std::string message) { return Error{ErrorCode::invalid_argument, std::move(message)}; }

// Every precision a GGUF type in the table's spelling, the baseline a float type, none twice.
Result<std::vector<GgufType>> check_gguf_types(Design& design) {
  std::vector<GgufType> types;
  // The baseline is the unquantized reference: a float type the quantized ones derive from.
  auto baseline = parse_gguf_type(design.baseline);
  if (!baseline || !precision_info(*baseline).is_source_format) {
    return invalid(fmt::format("baseline: '{}' is not a float type; the baseline must be F16, BF16 or F32",
                               design.baseline));
  }
  design.baseline = std::string(to_string(*baseline));
  types.push_back(*baseline);
  std::set<std::string, std::less<>> seen{design.baseline};
  for (std::string& candidate : design.candidates) {
    if (candidate.empty()) return invalid("candidates: an empty precision name");
    auto type = parse_gguf_type(candidate);
    if (!type) return Error{ErrorCode::invalid_argument, fmt::format("candidates: precision '{}'", candidate), type.error()};
    candidate = std::string(to_string(*type));
    if (!seen.insert(candidate).second) {
      return invalid(fmt::format("candidates: '{}' is listed twice (or is the baseline)", candidate));
    }
    types.push_back(*type);
  }
  return types;
}

// Every precision a label the reports can carry (workload.precision: 1–32 of A–Z a–z 0–9 _), none twice.
Result<void> check_labels(const Design& design) {
  std::set<std::string, std::less<>> seen;
  std::vector<std::string> all{design.baseline};
  all.insert(all.end(), design.candidates.begin(), design.candidates.end());
  for (std::size_t i = 0; i < all.size(); ++i) {
    const std::string& label = all[i];
    const char* field = i == 0 ? "baseline" : "candidates";
    const bool ok = !label.empty() && label.size() <= 32 && std::all_of(label.begin(), label.end(), [](char c) {
      return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
    });
    if (!ok) return invalid(fmt::format("{}: label '{}' must be 1–32 letters, digits or _", field, label));
    if (!seen.insert(label).second) return invalid(fmt::format("{}: '{}' is listed twice (or is the baseline)", field, label));
  }
  return {};
}

}  // namespace

Result<ValidatedDesign> validate(Design design) {
  std::vector<std::string> warnings;
  std::vector<GgufType> types;

  if (design.precision_labels) {
    if (auto labels = check_labels(design); !labels) return labels.error();
  } else {
    auto types_or = check_gguf_types(design);
    if (!types_or) return types_or.error();
    types = std::move(*types_or);
  }
  if (design.candidates.empty()) {
    warnings.emplace_back("candidates: none given; only the baseline is measured and no ΔE is computed");
  }

  if (design.trials < 1) return invalid(fmt::format("trials: {}; at least 1 is needed", design.trials));
  if (design.trials == 1) {
    warnings.emplace_back("trials: 1; no SD and no confidence interval can be computed (k ≥ 3 recommended)");
  } else if (design.trials == 2) {
    warnings.emplace_back("trials: 2; the 95 % CI uses t = 12.71 and is very wide (k ≥ 3 recommended)");
  }
  if (auto rule = check_sequential_rule(sequential_rule_of(design), {"target_ci_pt", "min_trials", "trials"}); !rule) {
    return rule.error();
  }
  if (design.target_ci_pt && design.candidates.empty()) {
    return invalid("target_ci_pt: there is no candidate, so no paired ΔE to stop on");
  }
  if (design.warmups < 1) {
    return invalid(fmt::format("warmups: {}; at least 1 is needed to time the windows", design.warmups));
  }
  if (design.trial_warmup_iterations < 0) {
    return invalid(fmt::format("trial_warmup_iterations: {}; must be 0 or more", design.trial_warmup_iterations));
  }
  if (design.level_warmup_tokens < 1) {
    return invalid(fmt::format("level_warmup_tokens: {}; must be at least 1", design.level_warmup_tokens));
  }
  if (design.tokens_per_iteration < 1) {
    return invalid(fmt::format("tokens_per_iteration: {}; must be at least 1", design.tokens_per_iteration));
  }
  if (design.iterations < 1) {
    return invalid(fmt::format("iterations: {}; must be at least 1", design.iterations));
  }
  if (!(design.min_window.value >= 0.0 && std::isfinite(design.min_window.value))) {
    return invalid(fmt::format("min_window: {} s; must be a finite number ≥ 0", design.min_window.value));
  }
  if (!(design.min_prefill_window.value >= 0.0 && std::isfinite(design.min_prefill_window.value))) {
    return invalid(fmt::format("min_prefill_window: {} s; must be a finite number ≥ 0", design.min_prefill_window.value));
  }
  if (!(design.max_edge_error_pct > 0.0 && design.max_edge_error_pct < 100.0)) {
    return invalid(fmt::format("max_edge_error_pct: {}; must be in (0, 100)", design.max_edge_error_pct));
  }
  if (!(design.assumed_counter_update_period.value > 0.0 && std::isfinite(design.assumed_counter_update_period.value))) {
    return invalid(fmt::format("assumed_counter_update_period: {} s; must be positive",
                               design.assumed_counter_update_period.value));
  }

  if (design.prompt.text.empty()) return invalid("prompt.text: empty; a prompt needs at least one token");
  std::set<int> batches;
  for (int batch : design.batches) {
    if (batch < 1 || batch > defaults::max_measure_batch) {
      return invalid(fmt::format("batches: {}; each batch must be 1 … {}", batch, defaults::max_measure_batch));
    }
    if (!batches.insert(batch).second) return invalid(fmt::format("batches: {} is listed twice", batch));
  }
  std::set<std::int64_t> lengths;
  for (std::int64_t length : design.prompt.lengths_tokens) {
    if (length < 1) return invalid(fmt::format("prompt.lengths_tokens: {}; must be at least 1", length));
    if (!lengths.insert(length).second) {
      return invalid(fmt::format("prompt.lengths_tokens: {} is listed twice", length));
    }
  }

  if (!(design.idle_window.value >= 0.0 && std::isfinite(design.idle_window.value))) {
    return invalid(fmt::format("idle_window: {} s; must be a finite number ≥ 0", design.idle_window.value));
  }
  if (design.idle_window.value == 0.0) {
    warnings.emplace_back("idle_window: 0 s; no idle power, so no net energy is reported");
  }
  if (!(design.cool_down.pause.value >= 0.0 && std::isfinite(design.cool_down.pause.value))) {
    return invalid(fmt::format("cool_down.pause: {} s; must be a finite number ≥ 0", design.cool_down.pause.value));
  }
  if (design.cool_down.max_temperature_c) {
    if (!std::isfinite(*design.cool_down.max_temperature_c)) {
      return invalid(fmt::format("cool_down.max_temperature_c: {}; must be a finite temperature", *design.cool_down.max_temperature_c));
    }
    if (!(design.cool_down.gate_poll.value > 0.0 && std::isfinite(design.cool_down.gate_poll.value))) {
      return invalid(fmt::format("cool_down.gate_poll: {} s; must be positive", design.cool_down.gate_poll.value));
    }
    if (!(design.cool_down.gate_timeout.value >= 0.0 && std::isfinite(design.cool_down.gate_timeout.value))) {
      return invalid(fmt::format("cool_down.gate_timeout: {} s; must not be negative",
                                 design.cool_down.gate_timeout.value));
    }
  }
  return ValidatedDesign(std::move(design), std::move(warnings), std::move(types));
}

SequentialRule sequential_rule_of(const Design& design) {
  return {design.target_ci_pt, design.min_trials, design.trials};
}

double sequential_confidence(const Design& design) { return sequential_rule_confidence(sequential_rule_of(design)); }

}  // namespace ecocompute::protocol
