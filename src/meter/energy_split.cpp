// EnergySplit arithmetic: net = gross − idle_power × duration.
#include "meter/energy_split.hpp"

#include <fmt/format.h>

namespace ecocompute::meter {

EnergySplit split_energy(Joules gross, Seconds duration, Watts idle_power) {
  const Joules idle = idle_power * duration;
  return EnergySplit{gross, idle, gross - idle};
}

Result<EnergySplit> split_energy(const Measurement& window, const Measurement& idle_baseline) {
  if (!window.is_valid() || !window.energy) {
    return unexpected(ErrorCode::measurement, fmt::format("window '{}' has no energy ({}: {})", window.label,
                                                          to_string(window.status), window.invalid_reason));
  }
  const auto idle_power = idle_baseline.is_valid() ? idle_baseline.average_power() : std::nullopt;
  if (!idle_power) {
    return unexpected(ErrorCode::measurement,
                      fmt::format("idle baseline '{}' has no energy ({}: {})", idle_baseline.label,
                                  to_string(idle_baseline.status), idle_baseline.invalid_reason));
  }
  return split_energy(*window.energy, window.duration, *idle_power);
}

}  // namespace ecocompute::meter
