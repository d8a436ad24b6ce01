// Clock: the runner's source of time and its way of waiting; tests replace it with fake time.
#pragma once

#include <string>

#include "util/units.hpp"

namespace ecocompute::protocol {

/// Time as the runner sees it. Not required to be thread-safe.
class Clock {
 public:
  virtual ~Clock() = default;
  /// Returns monotonic time since an arbitrary origin.
  [[nodiscard]] virtual Seconds now() = 0;
  /// Waits `duration` (returns at once for non-positive durations).
  virtual void sleep_for(Seconds duration) = 0;
  /// Returns the wall-clock time as ISO 8601 UTC, e.g. "2026-11-29T17:02:03Z".
  [[nodiscard]] virtual std::string utc_now() = 0;
};

/// The real clock: std::chrono::steady_clock, std::this_thread::sleep_for, system_clock.
class SteadyClock final : public Clock {
 public:
  [[nodiscard]] Seconds now() override;
  void sleep_for(Seconds duration) override;
  [[nodiscard]] std::string utc_now() override;
};

}  // namespace ecocompute::protocol
