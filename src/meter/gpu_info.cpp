// The GPU / energy-source fingerprint read from NVML and powercap.
#include "meter/gpu_info.hpp"

#include <fmt/format.h>

#include "meter/open_meter.hpp"
#include "meter/rapl_meter.hpp"

namespace ecocompute::meter {

std::string format_cuda_version(int version) { return fmt::format("{}.{}", version / 1000, (version % 1000) / 10); }

GpuInfo describe_gpu(const NvmlLibrary& nvml, const GpuDevice& gpu) {
  GpuInfo info;
  info.name = gpu.name;
  info.uuid = gpu.uuid;
  info.pci_bus_id = gpu.pci_bus_id;
  info.selected_by = gpu.selected_by;
  if (auto arch = nvml.architecture(gpu.handle)) info.arch = architecture_class(*arch);
  if (auto vbios = nvml.vbios_version(gpu.handle)) info.vbios = *vbios;
  if (auto limit = nvml.enforced_power_limit_mw(gpu.handle)) info.power_limit = from_milliwatts(*limit);
  if (auto ecc = nvml.ecc_enabled(gpu.handle)) info.ecc_enabled = *ecc;
  if (auto clock = nvml.clock_mhz(gpu.handle, nvml::clock_sm)) info.sm_clock_mhz = *clock;
  if (auto clock = nvml.clock_mhz(gpu.handle, nvml::clock_mem)) info.memory_clock_mhz = *clock;
  if (auto pstate = nvml.performance_state(gpu.handle)) info.pstate = *pstate;
  info.supports_energy_counter = nvml.total_energy_mj(gpu.handle).has_value();
  if (auto others = other_compute_processes(nvml, gpu)) info.other_processes = *others;
  return info;
}

namespace {

// Fills the GPU part of `sources` from one NVML session: the first spec is `gpu`; with several, each is
// also in `split_gpus`, and NVML counts as available only when every one has an energy counter.
void describe_gpus(const NvmlLibrary& nvml, const std::vector<std::string>& specs, EnergySources& sources) {
  for (std::size_t i = 0; i < specs.size(); ++i) {
    auto spec = parse_gpu_spec(specs[i]);
    auto gpu = spec ? select_gpu(nvml, *spec) : Result<GpuDevice>(spec.error());
    if (!gpu) {
      sources.nvml_available = false;
      sources.nvml_status = "no GPU energy source: " + gpu.error().describe();
      if (i == 0) return;
      continue;
    }
    GpuInfo info = describe_gpu(nvml, *gpu);
    if (i == 0) sources.nvml_available = true;
    if (!info.supports_energy_counter && sources.nvml_available) {
      sources.nvml_available = false;
      sources.nvml_status = "no GPU energy source: nvmlDeviceGetTotalEnergyConsumption is not supported on " + gpu->name;
    }
    if (i == 0) {
      if (sources.nvml_available) sources.nvml_status = "ok";
      sources.gpu = info;
    }
    if (specs.size() > 1) sources.split_gpus.push_back(std::move(info));
  }
}

}  // namespace

EnergySources describe_energy_sources(const std::string& gpu_spec, const std::string& nvml_library,
                                      const std::filesystem::path& rapl_root) {
  return describe_energy_sources(std::vector<std::string>{gpu_spec}, nvml_library, rapl_root);
}

EnergySources describe_energy_sources(const std::vector<std::string>& gpu_specs, const std::string& nvml_library,
                                      const std::filesystem::path& rapl_root) {
  EnergySources sources;
  sources.nvml_library = nvml_library.empty() ? NvmlLibrary::default_path() : nvml_library;
  auto nvml = NvmlLibrary::open(nvml_library);
  if (!nvml) {
    sources.nvml_status = nvml.error().describe();
  } else {
    if (auto v = (*nvml)->driver_version()) sources.driver_version = *v;
    if (auto v = (*nvml)->cuda_driver_version()) sources.cuda_driver_version = format_cuda_version(*v);
    describe_gpus(**nvml, gpu_specs.empty() ? std::vector<std::string>{std::string()} : gpu_specs, sources);
  }
  auto rapl = RaplMeter::open(rapl_root);
  sources.rapl_available = rapl.has_value();
  sources.rapl_status = rapl ? "ok: " + (*rapl)->device() : rapl.error().describe();
  return sources;
}

OrderedJson to_json(const EnergySources& sources) {
  OrderedJson out;
  out["nvml_available"] = sources.nvml_available;
  out["nvml_status"] = sources.nvml_status;
  out["nvml_library"] = sources.nvml_library;
  out["nvidia_driver"] = sources.driver_version.empty() ? OrderedJson() : OrderedJson(sources.driver_version);
  out["cuda_driver"] = sources.cuda_driver_version.empty() ? OrderedJson() : OrderedJson(sources.cuda_driver_version);
  if (sources.gpu) {
    const GpuInfo& g = *sources.gpu;
    OrderedJson gpu;
    gpu["name"] = g.name;
    gpu["uuid"] = g.uuid;
    gpu["pci_bus_id"] = g.pci_bus_id;
    gpu["selected_by"] = g.selected_by;
    gpu["arch"] = g.arch;
    gpu["vbios"] = g.vbios;
    gpu["power_limit_w"] = g.power_limit ? OrderedJson(g.power_limit->value) : OrderedJson();
    gpu["ecc_enabled"] = g.ecc_enabled ? OrderedJson(*g.ecc_enabled) : OrderedJson();
    gpu["sm_clock_mhz"] = g.sm_clock_mhz ? OrderedJson(*g.sm_clock_mhz) : OrderedJson();
    gpu["memory_clock_mhz"] = g.memory_clock_mhz ? OrderedJson(*g.memory_clock_mhz) : OrderedJson();
    gpu["pstate"] = g.pstate ? OrderedJson(*g.pstate) : OrderedJson();
    gpu["supports_energy_counter"] = g.supports_energy_counter;
    OrderedJson procs = OrderedJson::array();
    for (const GpuProcess& p : g.other_processes) procs.push_back({{"pid", p.pid}, {"used_memory_bytes", p.used_memory_bytes}});
    gpu["other_compute_processes"] = procs;
    out["gpu"] = gpu;
  } else {
    out["gpu"] = nullptr;
  }
  out["rapl_available"] = sources.rapl_available;
  out["rapl_status"] = sources.rapl_status;
  return out;
}

}  // namespace ecocompute::meter
