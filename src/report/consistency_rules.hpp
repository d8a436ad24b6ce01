// The consistency checker's rules, one function per part of a report (report_consistency.hpp is the
// public face). Each adds what it finds to a Findings.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "report/energy_report.hpp"
#include "report/report_consistency.hpp"

namespace ecocompute::report {

/// The contradictions found so far.
class Findings {
 public:
  void add(std::string field, std::string message) { list_.push_back({std::move(field), std::move(message)}); }
  [[nodiscard]] std::vector<Contradiction> list() && { return std::move(list_); }

 private:
  std::vector<Contradiction> list_;
};

/// Whether two figures differ by more than `relative` of the larger (and by more than `absolute`).
[[nodiscard]] bool differ(double a, double b, double relative, double absolute = 0.0) noexcept;

/// A number as the messages print it: up to 6 significant digits.
[[nodiscard]] std::string num(double v);

// Totals against per-token energy × tokens; results against the decode phase and the statistics.
void check_results(const EnergyReport& report, Findings& found);
// Each phase's energy per token against its energy and tokens.
void check_phases(const EnergyReport& report, Findings& found);
// Trial counts, confidence intervals (low ≤ mean ≤ high), CV against SD and mean, pairs.
void check_statistics(const EnergyReport& report, Findings& found);
// The trial list against the counts; each window's energy per token and power.
void check_trials(const EnergyReport& report, Findings& found);
// gguf_type and precision_class against the precision; size, file size and bits per weight.
void check_workload(const EnergyReport& report, Findings& found);
// Perplexity against its baseline and its mean log-likelihood.
void check_quality(const EnergyReport& report, Findings& found);
// The timestamp exists; average power within what the card (or any GPU) can draw.
void check_dates_and_power(const EnergyReport& report, Findings& found);

}  // namespace ecocompute::report
