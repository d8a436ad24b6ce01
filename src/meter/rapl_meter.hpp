// RaplMeter: CPU package energy from Linux powercap (intel-rapl:N/energy_uj), labelled "rapl".
#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "util/clock.hpp"
#include "meter/meter.hpp"
#include "meter/rapl_zones.hpp"

namespace ecocompute::meter {

/// Sums every CPU package zone (intel-rapl:N, not its sub-zones) under a powercap root.
class RaplMeter final : public Meter {
 public:
  /// Finds the package zones under `root` (normally /sys/class/powercap). Error{unavailable} naming
  /// the path when there is none or energy_uj is not readable (it is root-only on many kernels).
  static Result<std::unique_ptr<RaplMeter>> open(const std::filesystem::path& root = "/sys/class/powercap",
                                                 std::shared_ptr<Clock> clock = system_clock());

  [[nodiscard]] std::string source() const override { return "rapl"; }
  [[nodiscard]] std::string device() const override;
  [[nodiscard]] bool measures_energy() const override { return true; }

 protected:
  Window do_begin(std::string label) override;
  Result<Measurement> do_end(Window& window) override;

 private:
  struct Edge {
    Seconds steady{0.0};
    std::vector<Result<std::uint64_t>> energy_uj;
  };
  RaplMeter(std::vector<RaplZone> zones, std::shared_ptr<Clock> clock)
      : zones_(std::move(zones)), clock_(std::move(clock)) {}
  Edge read_edge() const;

  std::vector<RaplZone> zones_;
  std::shared_ptr<Clock> clock_;
  std::mutex mutex_;
  std::map<std::uint64_t, Edge> open_windows_;
  std::uint64_t next_window_id_ = 1;
};

/// The meter for machines with no energy source: durations only, status unavailable with a reason.
class NullMeter final : public Meter {
 public:
  explicit NullMeter(std::string reason, std::shared_ptr<Clock> clock = system_clock())
      : reason_(std::move(reason)), clock_(std::move(clock)) {}

  [[nodiscard]] std::string source() const override { return "none"; }
  [[nodiscard]] std::string device() const override { return "none"; }
  [[nodiscard]] bool measures_energy() const override { return false; }
  /// Returns why there is no energy source.
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }

 protected:
  Window do_begin(std::string label) override;
  Result<Measurement> do_end(Window& window) override;

 private:
  std::string reason_;
  std::shared_ptr<Clock> clock_;
  std::mutex mutex_;
  std::map<std::uint64_t, Seconds> open_windows_;
  std::uint64_t next_window_id_ = 1;
};

/// Returns the energy counted between two readings of a counter that wraps to 0 after reaching
/// `max_range` (RAPL's max_energy_range_uj): end − begin, or end + max_range − begin after a wrap.
std::uint64_t wrapped_delta(std::uint64_t begin, std::uint64_t end, std::uint64_t max_range) noexcept;

}  // namespace ecocompute::meter
