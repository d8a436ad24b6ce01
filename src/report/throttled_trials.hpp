// The sentence a result note carries when trials the GPU throttled in were counted
// (`measure --accept-throttled`): one wording for the reports the run writes and for the dataset
// rows made from older reports, and the phrase readers find it by.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace ecocompute::report {

/// Opens the sentence; readers (the dataset, the estimator) find it by this phrase.
inline constexpr std::string_view kThrottledTrialsCounted = "Throttled trials counted";

/// One condition's counted trials and how many of them ran throttled.
struct ThrottledCount {
  std::string condition;  ///< as the note names it: "Q4_K_M", "F16 (baseline)"
  std::size_t throttled = 0;
  std::size_t counted = 0;
};

/// "Throttled trials counted (<how>): F16 (baseline) 3 of 3." naming each condition with a throttled
/// trial, or nothing when none has one.
[[nodiscard]] std::optional<std::string> throttled_trials_note(std::string_view how, std::span<const ThrottledCount> counts);

}  // namespace ecocompute::report
