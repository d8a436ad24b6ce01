// Clock: the time seam of the meters (steady time for durations, wall time for driver timestamps).
#pragma once

#include <cstdint>
#include <memory>

#include "util/units.hpp"

namespace ecocompute::meter {

/// Where a meter reads time. Tests pass a clock driven by the fake NVML so values are exact.
class Clock {
 public:
  virtual ~Clock() = default;
  /// Returns monotonic time (any origin); used for durations.
  [[nodiscard]] virtual Seconds steady() const = 0;
  /// Returns wall time in microseconds since the epoch: the time base of NVML sample timestamps.
  [[nodiscard]] virtual std::uint64_t wall_us() const = 0;
};

/// Returns the process's clock (std::chrono::steady_clock and system_clock); thread-safe.
std::shared_ptr<Clock> system_clock();

}  // namespace ecocompute::meter
