// Clock: the one source of time. Meters read steady time for durations and wall time for the
// driver's sample timestamps; the runner waits on it and stamps trials with it. Tests replace it with
// fake time driven by a fake device or the fake NVML library, so every duration in a test is exact.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "util/units.hpp"

namespace ecocompute {

class Clock {
 public:
  virtual ~Clock() = default;
  /// Returns monotonic time since an arbitrary origin; used for durations.
  [[nodiscard]] virtual Seconds now() const = 0;
  /// Returns wall time in microseconds since the epoch: the time base of NVML sample timestamps.
  [[nodiscard]] virtual std::uint64_t wall_us() const = 0;
  /// Waits `duration` (returns at once for non-positive durations); a fake clock advances instead.
  virtual void sleep_for(Seconds duration) = 0;
  /// Returns the wall time as ISO 8601 UTC with seconds, e.g. "2026-11-29T17:02:03Z".
  [[nodiscard]] virtual std::string utc_now() const { return format_utc(wall_us()); }

  /// Formats microseconds since the epoch as ISO 8601 UTC with seconds ("2026-11-29T17:02:03Z").
  [[nodiscard]] static std::string format_utc(std::uint64_t wall_us);
};

/// Returns the process's clock (std::chrono::steady_clock, system_clock, this_thread::sleep_for);
/// thread-safe.
[[nodiscard]] std::shared_ptr<Clock> system_clock();

/// Returns system_clock()->utc_now(): the current UTC time as ISO 8601 with seconds.
[[nodiscard]] std::string utc_now();

}  // namespace ecocompute
