// The "Throttled trials counted" sentence.
#include "report/throttled_trials.hpp"

#include <fmt/format.h>

namespace ecocompute::report {

std::optional<std::string> throttled_trials_note(std::string_view how, std::span<const ThrottledCount> counts) {
  std::string named;
  for (const ThrottledCount& c : counts) {
    if (c.throttled == 0) continue;
    named += fmt::format("{}{} {} of {}", named.empty() ? "" : ", ", c.condition, c.throttled, c.counted);
  }
  if (named.empty()) return std::nullopt;
  return fmt::format("{} ({}): {}.", kThrottledTrialsCounted, how, named);
}

}  // namespace ecocompute::report
