// NvmlMeter: GPU energy from NVML's energy counter at window edges, with a background sampler that
// drains the driver's power buffer and measures the counter's update period.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "util/clock.hpp"
#include "meter/edge_correction.hpp"
#include "meter/gpu_selection.hpp"
#include "meter/meter.hpp"
#include "meter/nvml_library.hpp"
#include "meter/power_trace.hpp"

namespace ecocompute::meter {

/// How the sampler runs.
struct NvmlMeterOptions {
  /// Starts the background sampler thread. Tests turn it off and call poll_counter() / drain_trace().
  bool start_sampler = true;
  /// Counter poll interval while the update period is being measured.
  std::chrono::milliseconds counter_poll{5};
  /// Counter changes to observe before polling slows to the drain interval.
  std::size_t period_changes_wanted = 64;
  /// How often the driver's power buffer is drained (it holds ~2.4 s on H200: drain ≤ 1 s).
  std::chrono::milliseconds drain_interval{500};
  /// Samples kept in memory (older ones are discarded first).
  std::size_t max_trace_samples = 1u << 20;
  /// Corrects each window edge for the counter's staleness (EdgeMethod::corrected): the sampler then
  /// polls the counter every `edge_poll` for the meter's whole life, to locate every update.
  bool correct_edges = false;
  std::chrono::milliseconds edge_poll{2};
  /// Counter changes remembered for edge correction (~7 minutes at 100 ms).
  std::size_t max_counter_changes = 4096;
};

/// Reads one GPU. begin()/end() read the counter and telemetry on the calling thread; NVML is
/// otherwise read only by the meter's own sampler thread. Thread-safe.
class NvmlMeter final : public Meter {
 public:
  NvmlMeter(std::shared_ptr<NvmlLibrary> nvml, GpuDevice gpu, std::shared_ptr<Clock> clock = system_clock(),
            NvmlMeterOptions options = {});
  ~NvmlMeter() override;
  NvmlMeter(const NvmlMeter&) = delete;
  NvmlMeter& operator=(const NvmlMeter&) = delete;

  [[nodiscard]] std::string source() const override { return "nvml-energy-counter"; }
  [[nodiscard]] std::string device() const override { return gpu_.name + " " + gpu_.uuid; }
  [[nodiscard]] bool measures_energy() const override { return true; }

  [[nodiscard]] const GpuDevice& gpu() const noexcept { return gpu_; }
  [[nodiscard]] const NvmlLibrary& library() const noexcept { return *nvml_; }

  /// Reads the counter once and, until `period_changes_wanted` changes are seen, records a change
  /// (what the sampler does every poll). A failed read counts as a dropped read.
  void poll_counter();
  /// Drains new samples from the driver's power buffer into the trace, and its GPU-utilization buffer
  /// into the busy trace (what the sampler does ≤ 1 s).
  void drain_trace();
  /// Returns the median interval between counter changes seen so far; nullopt before two changes.
  [[nodiscard]] std::optional<Seconds> counter_update_period() const;
  /// Returns the counter readings kept for the update period: the first, then one per change.
  [[nodiscard]] std::vector<CounterReading> counter_readings() const;
  /// Returns the trace collected so far.
  [[nodiscard]] std::vector<PowerSample> trace() const;
  /// Reads temperature, clocks, power limit, field 185, throttle reasons and P-state now.
  [[nodiscard]] Telemetry read_telemetry() const;

 protected:
  Window do_begin(std::string label) override;
  Result<Measurement> do_end(Window& window) override;

 private:
  struct Edge {
    Seconds steady{0.0};
    std::uint64_t wall_us = 0;
    Result<std::uint64_t> energy_mj = Error{ErrorCode::internal, "not read"};
    std::optional<CounterChange> change;  ///< the update that produced energy_mj, when polled
    std::optional<Watts> power;
    Telemetry telemetry;
    std::uint64_t dropped_reads = 0;
  };
  Edge read_edge();
  void run_sampler();
  // Drain the driver's power and GPU-utilization buffers (mutex_ not held).
  void drain_power();
  void drain_busy();
  // Records a counter read that began at before_us and returned at after_us (mutex_ held).
  void observe_counter(std::uint64_t energy_mj, std::uint64_t before_us, std::uint64_t after_us);
  // Moves the measurement to corrected edges, or says in it why not (mutex_ not held).
  void correct_edges(Measurement& m, const Edge& begin, const Edge& end, const std::vector<PowerSample>& trace,
                     std::uint64_t tolerance_us) const;

  std::shared_ptr<NvmlLibrary> nvml_;
  GpuDevice gpu_;
  std::shared_ptr<Clock> clock_;
  NvmlMeterOptions options_;

  mutable std::mutex mutex_;
  std::vector<CounterReading> readings_;  // only readings around changes are kept
  std::size_t changes_seen_ = 0;
  std::vector<CounterChange> changes_;    // every change seen, when correcting edges
  std::optional<std::uint64_t> last_value_mj_;
  std::uint64_t last_read_began_us_ = 0;
  std::vector<PowerSample> trace_;
  std::uint64_t last_sample_us_ = 0;
  std::vector<PowerSample> busy_trace_;  // GPU-utilization samples: `power` holds the percent
  std::uint64_t last_busy_us_ = 0;
  bool busy_readable_ = true;  // false once the driver refused utilization samples
  std::uint64_t dropped_reads_ = 0;
  std::map<std::uint64_t, Edge> open_windows_;
  std::uint64_t next_window_id_ = 1;

  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::thread sampler_;
};

}  // namespace ecocompute::meter
