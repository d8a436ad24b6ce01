// GpuEnergyCounter: the energy counters of the GPUs the upstream server runs on, summed, and the
// poller that turns each advance of the sum into a closed interval of the ledger.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "meter/gpu_selection.hpp"
#include "meter/nvml_library.hpp"
#include "proxy/energy_ledger.hpp"
#include "util/clock.hpp"
#include "util/result.hpp"

namespace ecocompute::proxy {

/// Reads the summed energy counter of a fixed set of GPUs.
class GpuEnergyCounter {
 public:
  /// Opens NVML (`nvml_library`: empty for $ECOCOMPUTE_NVML_LIBRARY or the driver's) and each GPU of
  /// `gpus` (UUID, PCI bus id or cuda:N; empty: the first visible CUDA device). Errors name the GPU.
  static Result<GpuEnergyCounter> open(const std::vector<std::string>& gpus, const std::string& nvml_library);

  /// Returns the sum of every GPU's counter, in millijoules; the error names the GPU that failed.
  [[nodiscard]] Result<std::uint64_t> read_total_mj() const;
  /// "NVIDIA H200 GPU-…" for each GPU.
  [[nodiscard]] std::vector<std::string> devices() const;

 private:
  GpuEnergyCounter(std::shared_ptr<meter::NvmlLibrary> nvml, std::vector<meter::GpuDevice> gpus)
      : nvml_(std::move(nvml)), gpus_(std::move(gpus)) {}
  std::shared_ptr<meter::NvmlLibrary> nvml_;
  std::vector<meter::GpuDevice> gpus_;
};

/// Polls the counter on its own thread and closes a ledger interval at each change of the sum (the
/// counter's own update cadence, found by polling faster than it updates).
class CounterPoller {
 public:
  CounterPoller(GpuEnergyCounter counter, EnergyLedger& ledger, std::shared_ptr<Clock> clock,
                std::chrono::milliseconds poll_interval);
  ~CounterPoller();
  CounterPoller(const CounterPoller&) = delete;
  CounterPoller& operator=(const CounterPoller&) = delete;

  /// Reads the counter once: the ledger's first interval begins at this reading. Errors name the GPU.
  Result<void> start();
  /// Stops the thread (the interval open since the last change stays open).
  void stop();
  /// Reads the counter now and closes an interval when it moved (what the thread does every poll).
  void poll_once();
  [[nodiscard]] const GpuEnergyCounter& counter() const noexcept { return counter_; }
  /// The counter's last reading less its first, joules (for the conservation check: the ledger's
  /// closed intervals add up to it when the counter never went back).
  [[nodiscard]] double counter_advance_j() const;

 private:
  void run();

  GpuEnergyCounter counter_;
  EnergyLedger& ledger_;
  std::shared_ptr<Clock> clock_;
  std::chrono::milliseconds poll_interval_;
  mutable std::mutex mutex_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::optional<std::uint64_t> first_mj_;
  std::optional<std::uint64_t> last_mj_;
  std::uint64_t failed_reads_ = 0;
  std::thread thread_;
};

}  // namespace ecocompute::proxy
