// FakeDevice: fake time and an energy counter that advance together, so fake work has exact energy.
#pragma once

#include <optional>

#include "util/units.hpp"

namespace ecocompute::fakes {

/// A fake GPU: a clock, a cumulative energy counter and a temperature. Work advances time and
/// energy at its power; idling advances them at the idle power and cools the device towards the
/// ambient temperature. Every value is exact arithmetic, so tests can assert exact joules.
class FakeDevice {
 public:
  explicit FakeDevice(Watts idle_power = Watts{100.0}) : idle_power_(idle_power) {}

  [[nodiscard]] Seconds now() const { return now_; }
  [[nodiscard]] Joules energy() const { return energy_; }
  [[nodiscard]] Watts idle_power() const { return idle_power_; }
  [[nodiscard]] std::optional<double> temperature_c() const { return temperature_c_; }

  void set_idle_power(Watts power) { idle_power_ = power; }
  /// Sets the temperature; std::nullopt makes the device report none.
  void set_temperature_c(std::optional<double> celsius) { temperature_c_ = celsius; }
  /// Sets how the temperature moves: +heating per second of work, −cooling per second of idle, never
  /// below ambient.
  void set_thermal(double heating_c_per_s, double cooling_c_per_s, double ambient_c) {
    heating_c_per_s_ = heating_c_per_s;
    cooling_c_per_s_ = cooling_c_per_s;
    ambient_c_ = ambient_c;
  }

  /// Advances time by `duration` at `power` (work).
  void run(Seconds duration, Watts power) {
    now_ += duration;
    energy_ += power * duration;
    if (temperature_c_) *temperature_c_ += heating_c_per_s_ * duration.value;
  }
  /// Advances time by `duration` at the idle power.
  void idle(Seconds duration) {
    if (duration.value <= 0.0) return;
    now_ += duration;
    energy_ += idle_power_ * duration;
    if (temperature_c_) {
      *temperature_c_ -= cooling_c_per_s_ * duration.value;
      if (*temperature_c_ < ambient_c_) *temperature_c_ = ambient_c_;
    }
  }

 private:
  Watts idle_power_;
  Seconds now_{0.0};
  Joules energy_{0.0};
  std::optional<double> temperature_c_;
  double heating_c_per_s_ = 0.0;
  double cooling_c_per_s_ = 0.0;
  double ambient_c_ = 0.0;
};

}  // namespace ecocompute::fakes
