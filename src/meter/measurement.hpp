// Measurement: the immutable result of one measurement window.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/units.hpp"

namespace ecocompute::meter {

/// GPU state read at one window edge. Absent values were not readable on this device.
struct Telemetry {
  std::optional<double> temperature_c;
  std::optional<std::uint32_t> sm_clock_mhz;
  std::optional<std::uint32_t> memory_clock_mhz;
  std::optional<Watts> power_limit;
  std::optional<Watts> power_average_1s;     ///< NVML field 185 (driver's 1-s average); display only
  std::optional<std::uint64_t> throttle_reasons;  ///< nvmlClocksEventReasons bit mask
  std::vector<std::string> throttle_reason_names; ///< decoded bits that indicate throttling
  std::optional<int> pstate;                 ///< 0 = P0 …
};

/// One sample of the driver's power buffer (nvmlDeviceGetSamples, total power).
struct PowerSample {
  std::uint64_t timestamp_us = 0;  ///< driver timestamp (CPU time base, microseconds)
  Watts power{0.0};
};

/// Why a window is not a valid measurement; `valid` windows have `invalid_reason` empty.
enum class WindowStatus { valid, counter_reset, counter_stuck, read_failed, unavailable };

/// How a window's energy was taken from the counter. `counter`: the plain difference of the two edge
/// readings, each up to one update period stale. `corrected`: each edge's staleness (the energy spent
/// between the counter's last update and the edge) added from the power trace, the update located by
/// polling the counter every few milliseconds.
enum class EdgeMethod { counter, corrected };

/// Energy of one window on one energy source.
struct Measurement {
  std::string label;
  std::string source;                 ///< "nvml-energy-counter", "rapl", or "none"
  std::string device;                 ///< GPU name + UUID, RAPL zone, or "none"
  WindowStatus status = WindowStatus::unavailable;
  std::string invalid_reason;         ///< set when status != valid

  Seconds duration{0.0};              ///< steady clock, begin() to end()
  std::optional<Joules> energy;       ///< counter difference, edge-corrected when edge_method says so; absent when status != valid
  std::optional<Joules> edge_uncertainty;  ///< ± bound from both edges (counter: P × update period per edge)
  EdgeMethod edge_method = EdgeMethod::counter;
  std::optional<Joules> counter_energy;    ///< the plain counter difference, when the edges were corrected
  std::optional<Joules> edge_correction;   ///< energy − counter_energy: end edge's staleness − begin edge's
  std::string edge_correction_skipped;     ///< why a window meant to be corrected kept counter edges
  std::optional<Seconds> counter_update_period;  ///< measured, not assumed

  std::vector<PowerSample> trace;     ///< driver samples inside the window
  std::optional<Joules> trace_energy; ///< trapezoid integral of the trace over the window
  std::optional<double> trace_vs_counter_pct;  ///< (trace − counter) / counter × 100
  double achieved_sample_rate_hz = 0.0;
  /// Mean of the driver's GPU-utilization samples inside the window: the share of time a kernel ran.
  /// Below ~90 % the host, not the GPU, set the pace of the work. Absent where not readable.
  std::optional<double> gpu_busy_pct;
  std::size_t gpu_busy_samples = 0;
  std::uint64_t dropped_reads = 0;    ///< sampler reads that failed or returned nothing new

  /// The host's energy over the same window, read beside a GPU meter (HostEnergyMeter, RAPL): the CPU
  /// packages and DRAM. Never part of `energy`; absent where powercap is not readable.
  std::optional<Joules> cpu_energy;
  std::optional<Joules> dram_energy;

  Telemetry at_begin;
  Telemetry at_end;
  /// A window over several GPUs (MultiGpuMeter): each GPU's own measurement, in the meter's order;
  /// the fields above are their sum (energy) or their combination. Empty for a one-device window.
  std::vector<Measurement> per_device;

  [[nodiscard]] bool is_valid() const noexcept { return status == WindowStatus::valid; }
  /// Returns average power over the window (energy / duration), when energy is present.
  [[nodiscard]] std::optional<Watts> average_power() const {
    if (!energy || duration.value <= 0.0) return std::nullopt;
    return *energy / duration;
  }
};

/// Returns the spelling used in reports: "valid", "counter_reset" …
const char* to_string(WindowStatus status) noexcept;
/// Returns "counter" or "corrected".
const char* to_string(EdgeMethod method) noexcept;

}  // namespace ecocompute::meter
