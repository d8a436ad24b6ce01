// GpuInfo and EnergySources: the environment fingerprint of the GPU and the energy sources, for
// `ecocompute info` and every report.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "meter/gpu_selection.hpp"
#include "meter/nvml_library.hpp"
#include "util/json.hpp"
#include "util/units.hpp"

namespace ecocompute::meter {

/// What NVML says about one GPU. Absent values were not readable.
struct GpuInfo {
  std::string name;
  std::string uuid;
  std::string pci_bus_id;
  std::string selected_by;
  std::string arch;                         ///< "hopper", "ada" … (architecture_class)
  std::string vbios;
  std::optional<Watts> power_limit;
  std::optional<bool> ecc_enabled;
  std::optional<unsigned int> sm_clock_mhz;
  std::optional<unsigned int> memory_clock_mhz;
  std::optional<int> pstate;
  bool supports_energy_counter = false;     ///< nvmlDeviceGetTotalEnergyConsumption answered
  std::vector<GpuProcess> other_processes;  ///< compute processes other than ours
};

/// The machine's energy sources as found now.
struct EnergySources {
  bool nvml_available = false;
  std::string nvml_library;                 ///< the path dlopen was given
  std::string nvml_status;                  ///< "ok" or "no GPU energy source: <reason>"
  std::string driver_version;
  std::string cuda_driver_version;          ///< "13.0"
  std::optional<GpuInfo> gpu;              ///< the GPU read (the first, for a split over several)
  std::vector<GpuInfo> split_gpus;          ///< every GPU of a run split over several, in order; else empty
  bool rapl_available = false;
  std::string rapl_status;                  ///< "ok: <zones>" or the reason
};

/// Describes `gpu` (name, UUID, arch class, VBIOS, power limit, ECC, clocks, P-state …).
GpuInfo describe_gpu(const NvmlLibrary& nvml, const GpuDevice& gpu);

/// Finds the energy sources: NVML (library path as NvmlLibrary::open), the GPU named by `gpu_spec`
/// (as `--gpu`), and RAPL under `rapl_root`. Never fails: what is missing is said in the statuses.
EnergySources describe_energy_sources(const std::string& gpu_spec, const std::string& nvml_library = "",
                                      const std::filesystem::path& rapl_root = "/sys/class/powercap");

/// The same for a run split over several GPUs (`--gpus`): `gpu` is the first, `split_gpus` all of them,
/// and NVML counts as available only when every GPU has an energy counter. One spec: as above.
EnergySources describe_energy_sources(const std::vector<std::string>& gpu_specs, const std::string& nvml_library = "",
                                      const std::filesystem::path& rapl_root = "/sys/class/powercap");

/// Returns the sources as JSON (keys with unit suffixes: power_limit_w, sm_clock_mhz …).
OrderedJson to_json(const EnergySources& sources);

/// Formats a CUDA driver version integer (13000) as "13.0".
std::string format_cuda_version(int version);

}  // namespace ecocompute::meter
