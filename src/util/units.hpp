// Strong types for computed physical quantities; raw vendor integers keep a unit suffix instead
// (energy_mj, power_mw) and are converted once, at the boundary where they are read.
#pragma once

#include <compare>

namespace ecocompute {

/// A double tagged with its unit, so joules cannot be added to watts by accident.
template <typename Tag>
struct Quantity {
  double value = 0.0;

  constexpr Quantity() = default;
  constexpr explicit Quantity(double v) : value(v) {}

  constexpr Quantity operator+(Quantity other) const { return Quantity{value + other.value}; }
  constexpr Quantity operator-(Quantity other) const { return Quantity{value - other.value}; }
  constexpr Quantity operator*(double k) const { return Quantity{value * k}; }
  constexpr Quantity operator/(double k) const { return Quantity{value / k}; }
  constexpr double operator/(Quantity other) const { return value / other.value; }
  constexpr Quantity& operator+=(Quantity other) { value += other.value; return *this; }
  constexpr Quantity& operator-=(Quantity other) { value -= other.value; return *this; }
  constexpr auto operator<=>(const Quantity&) const = default;
};

struct JoulesTag {};
struct WattsTag {};
struct SecondsTag {};

using Joules = Quantity<JoulesTag>;
using Watts = Quantity<WattsTag>;
using Seconds = Quantity<SecondsTag>;

constexpr Joules operator*(Watts p, Seconds t) { return Joules{p.value * t.value}; }
constexpr Joules operator*(Seconds t, Watts p) { return Joules{p.value * t.value}; }
constexpr Watts operator/(Joules e, Seconds t) { return Watts{e.value / t.value}; }
constexpr Seconds operator/(Joules e, Watts p) { return Seconds{e.value / p.value}; }

/// Bytes in a GiB, for sizes of files and of GPU memory in messages.
inline constexpr double kBytesPerGiB = 1024.0 * 1024.0 * 1024.0;

/// Converts NVML's millijoule counter reading.
constexpr Joules from_millijoules(unsigned long long mj) { return Joules{static_cast<double>(mj) / 1e3}; }
/// Converts NVML's milliwatt power reading.
constexpr Watts from_milliwatts(unsigned long long mw) { return Watts{static_cast<double>(mw) / 1e3}; }

}  // namespace ecocompute
