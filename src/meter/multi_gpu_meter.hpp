// MultiGpuMeter: one window over several GPUs (a model split across them): each GPU's own meter reads
// its own counter at the window's edges, and the window's energy is their sum, with every GPU's
// measurement kept beside it (Measurement::per_device).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "meter/meter.hpp"
#include "meter/nvml_meter.hpp"

namespace ecocompute::meter {

class MultiGpuMeter final : public Meter {
 public:
  /// `meters`: one per GPU, at least two, each measuring energy (checked: ECO_CHECK).
  explicit MultiGpuMeter(std::vector<std::unique_ptr<Meter>> meters);

  [[nodiscard]] std::string source() const override { return meters_.front()->source(); }
  /// "2 GPUs: NVIDIA H200 GPU-…; NVIDIA H200 GPU-…".
  [[nodiscard]] std::string device() const override;
  [[nodiscard]] bool measures_energy() const override { return true; }
  [[nodiscard]] std::size_t device_count() const noexcept { return meters_.size(); }
  /// Each GPU's device string, in order.
  [[nodiscard]] std::vector<std::string> devices() const;

 protected:
  Window do_begin(std::string label) override;
  Result<Measurement> do_end(Window& window) override;

 private:
  std::vector<std::unique_ptr<Meter>> meters_;
  std::mutex mutex_;
  std::uint64_t next_id_ = 1;
  std::map<std::uint64_t, std::vector<Window>> open_;
};

/// Combines the windows of several GPUs over the same work: energy, counter energy, edge correction,
/// trace energy and edge uncertainty (bounds add) are sums, present only when present on every GPU;
/// the window is valid only when every GPU's is (else the first invalid one's status, its reason
/// naming the GPU); duration and update period the longest; sample rate the lowest; dropped reads
/// summed; telemetry the worst case (hottest, slowest clocks, highest P-state, throttle reasons of
/// any GPU) with power limits and 1-s powers summed. The trace stays per GPU.
Measurement combine_measurements(std::vector<Measurement> parts, const std::string& device);

/// Opens one NvmlMeter per UUID (each GPU named once) and a MultiGpuMeter over them; one UUID gives
/// that GPU's plain NvmlMeter, so a one-GPU run is exactly what it was. Errors name the UUID. `check`,
/// when given, vets each GPU once it is found (e.g. that no other process computes on it) before its
/// meter starts; its error is returned as is.
Result<std::unique_ptr<Meter>> open_gpus_meter(std::shared_ptr<NvmlLibrary> nvml, const std::vector<std::string>& uuids,
                                               std::shared_ptr<Clock> clock, const NvmlMeterOptions& options,
                                               const std::function<Result<void>(const GpuDevice&)>& check = {});

}  // namespace ecocompute::meter
