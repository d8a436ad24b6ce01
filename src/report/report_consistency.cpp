// The consistency rules. Tolerances are those of rounding, not of measurement: every rule held exactly
// (within floating-point printing) on each of the 260 reports shipped under data/sessions and tests/.
#include "report/report_consistency.hpp"

#include <cmath>
#include <fmt/format.h>

#include "report/consistency_rules.hpp"

namespace ecocompute::report {

std::vector<Contradiction> find_contradictions(const EnergyReport& report) {
  Findings found;
  check_results(report, found);
  check_phases(report, found);
  check_statistics(report, found);
  check_trials(report, found);
  check_workload(report, found);
  check_quality(report, found);
  check_dates_and_power(report, found);
  return std::move(found).list();
}

std::optional<Error> contradiction_error(const EnergyReport& report, std::string_view source) {
  const std::vector<Contradiction> found = find_contradictions(report);
  if (found.empty()) return std::nullopt;
  std::string lines;
  for (const Contradiction& c : found) lines += fmt::format("{}{}: {}", lines.empty() ? "" : "; ", c.field, c.message);
  return Error{ErrorCode::invalid_input,
               fmt::format("{} contradicts itself ({} figure{} disagree{} with the others): {}", source, found.size(),
                           found.size() == 1 ? "" : "s", found.size() == 1 ? "s" : "", lines)};
}

bool is_valid_timestamp(std::string_view t) noexcept {
  auto digits = [&](std::size_t at, std::size_t n, int& value) {
    if (at + n > t.size()) return false;
    value = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      if (t[i] < '0' || t[i] > '9') return false;
      value = value * 10 + (t[i] - '0');
    }
    return true;
  };
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!digits(0, 4, year) || t.size() < 20 || t[4] != '-' || !digits(5, 2, month) || t[7] != '-' || !digits(8, 2, day) ||
      (t[10] != 'T' && t[10] != 't') || !digits(11, 2, hour) || t[13] != ':' || !digits(14, 2, minute) || t[16] != ':' ||
      !digits(17, 2, second)) {
    return false;
  }
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  if (month < 1 || month > 12 || day < 1 || day > kDays[month - 1] + (month == 2 && leap ? 1 : 0) || hour > 23 ||
      minute > 59 || second > 60) {
    return false;
  }
  std::size_t at = 19;
  if (at < t.size() && t[at] == '.') {
    const std::size_t start = ++at;
    while (at < t.size() && t[at] >= '0' && t[at] <= '9') ++at;
    if (at == start) return false;
  }
  if (at < t.size() && (t[at] == 'Z' || t[at] == 'z')) return at + 1 == t.size();
  int offset_hours = 0, offset_minutes = 0;
  return at + 6 == t.size() && (t[at] == '+' || t[at] == '-') && digits(at + 1, 2, offset_hours) && t[at + 3] == ':' &&
         digits(at + 4, 2, offset_minutes) && offset_hours <= 23 && offset_minutes <= 59;
}

}  // namespace ecocompute::report
