// HostEnergyMeter: the CPU packages' and DRAM's energy (RAPL) read at the edges of another meter's
// windows, so a GPU measurement states the host's share beside the GPU's. The GPU figure stays the
// measurement's energy; the host figures are their own fields, never summed into it.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "meter/meter.hpp"
#include "meter/rapl_zones.hpp"

namespace ecocompute::meter {

class HostEnergyMeter final : public Meter {
 public:
  /// Wraps `inner` when RAPL package zones under `rapl_root` are readable (DRAM zones where present);
  /// otherwise returns `inner` unchanged and says why in the log at info level.
  static std::unique_ptr<Meter> wrap(std::unique_ptr<Meter> inner, const std::filesystem::path& rapl_root);

  [[nodiscard]] std::string source() const override { return inner_->source(); }
  [[nodiscard]] std::string device() const override { return inner_->device(); }
  [[nodiscard]] bool measures_energy() const override { return inner_->measures_energy(); }

 protected:
  Window do_begin(std::string label) override;
  Result<Measurement> do_end(Window& window) override;

 private:
  using Counters = std::vector<Result<std::uint64_t>>;
  struct Open {
    Window inner;
    Counters cpu, dram;
  };
  HostEnergyMeter(std::unique_ptr<Meter> inner, std::vector<RaplZone> cpu, std::vector<RaplZone> dram)
      : inner_(std::move(inner)), cpu_(std::move(cpu)), dram_(std::move(dram)) {}

  std::unique_ptr<Meter> inner_;
  std::vector<RaplZone> cpu_, dram_;
  std::mutex mutex_;
  std::map<std::uint64_t, Open> open_;
  std::uint64_t next_id_ = 1;
};

}  // namespace ecocompute::meter
