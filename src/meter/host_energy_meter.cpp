#include "meter/host_energy_meter.hpp"

#include <fmt/format.h>

#include "util/log.hpp"

namespace ecocompute::meter {

std::unique_ptr<Meter> HostEnergyMeter::wrap(std::unique_ptr<Meter> inner, const std::filesystem::path& rapl_root) {
  auto cpu = find_rapl_zones(rapl_root, RaplZoneKind::package);
  if (!cpu) {
    log::info("no host energy beside the GPU's: {}", cpu.error().describe());
    return inner;
  }
  auto dram = find_rapl_zones(rapl_root, RaplZoneKind::dram);
  if (!dram) log::info("CPU package energy is read beside the GPU's, DRAM's is not: {}", dram.error().describe());
  std::vector<RaplZone> dram_zones = dram ? std::move(*dram) : std::vector<RaplZone>{};
  return std::unique_ptr<Meter>(new HostEnergyMeter(std::move(inner), std::move(*cpu), std::move(dram_zones)));
}

Window HostEnergyMeter::do_begin(std::string label) {
  // The host counters are read just before the inner meter's edge and just after its end edge, so
  // the host window holds the inner one (by the microseconds of a sysfs read).
  Counters cpu = read_rapl_counters(cpu_);
  Counters dram = read_rapl_counters(dram_);
  Window inner = inner_->begin(label);
  std::lock_guard lock(mutex_);
  const std::uint64_t id = next_id_++;
  open_.emplace(id, Open{std::move(inner), std::move(cpu), std::move(dram)});
  return make_window(std::move(label), id);
}

Result<Measurement> HostEnergyMeter::do_end(Window& window) {
  std::optional<Open> open;
  {
    std::lock_guard lock(mutex_);
    auto it = open_.find(window.id());
    if (it == open_.end()) {
      return unexpected(ErrorCode::internal, fmt::format("window '{}' was not opened by this meter", window.label()));
    }
    open.emplace(std::move(it->second));
    open_.erase(it);
  }
  auto measurement = inner_->end(std::move(open->inner));
  const Counters cpu_end = read_rapl_counters(cpu_);
  const Counters dram_end = read_rapl_counters(dram_);
  if (!measurement) return measurement;
  if (auto joules = rapl_joules_between(cpu_, open->cpu, cpu_end)) {
    measurement->cpu_energy = Joules{*joules};
  } else {
    log::warn("window '{}': the CPU package energy was not read: {}", window.label(), joules.error().describe());
  }
  if (!dram_.empty()) {
    if (auto joules = rapl_joules_between(dram_, open->dram, dram_end)) measurement->dram_energy = Joules{*joules};
  }
  return measurement;
}

}  // namespace ecocompute::meter
