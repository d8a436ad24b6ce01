// Device selection: which ggml backend device (GPU) runs the model, chosen by CUDA UUID or PCI bus id.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

struct ggml_backend_device;

namespace ecocompute::engine {

/// A GPU as ggml's backend registry lists it.
struct GpuDevice {
  ggml_backend_device* handle = nullptr;
  std::string name;         ///< ggml's name: "CUDA0"
  std::string description;  ///< "NVIDIA H200"
  std::string backend;      ///< registry name: "CUDA"
  std::string pci_bus_id;   ///< "0000:c1:00.0" when the backend knows it, else ""
  std::size_t memory_free_bytes = 0;
  std::size_t memory_total_bytes = 0;
};

/// Returns every GPU (and integrated GPU) device of the linked ggml backends, in registry order.
std::vector<GpuDevice> list_gpu_devices();

/// PCI location parsed from "dddd:bb:dd.f" or NVML's "dddddddd:BB:DD.F" (hex, any case).
struct PciAddress {
  unsigned domain = 0, bus = 0, device = 0, function = 0;
  friend bool operator==(const PciAddress&, const PciAddress&) = default;
};
std::optional<PciAddress> parse_pci_bus_id(std::string_view text);

/// A CUDA device as the driver names it.
struct CudaDeviceId {
  std::string uuid;        ///< "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", NVML's spelling
  std::string pci_bus_id;  ///< "0000:C1:00.0"
};

/// Lists the visible CUDA devices, asked of the CUDA driver (libcuda.so.1, loaded at run time);
/// Error (unavailable) when there is no driver, (device) when it fails.
Result<std::vector<CudaDeviceId>> list_cuda_devices();

/// Returns the PCI bus id of the CUDA device with `uuid` (case-insensitive); Error as
/// list_cuda_devices, or not_found naming the visible UUIDs.
Result<std::string> cuda_pci_bus_id_for_uuid(std::string_view uuid);

/// Chooses the GPU to run on. `wanted` empty: the first GPU, or nullopt when there is none (CPU run).
/// `wanted` a PCI bus id ("0000:c1:00.0") or a CUDA UUID ("GPU-…"): that GPU, or an Error naming
/// `wanted` and the GPUs there are — never silently another GPU, since the meter reads that one.
Result<std::optional<GpuDevice>> select_gpu(std::string_view wanted);

}  // namespace ecocompute::engine
