// GPU selection: the device is named by CUDA UUID, PCI bus id or visible CUDA ordinal, never "index 0".
#pragma once

#include <optional>
#include <string>

#include "meter/nvml_library.hpp"
#include "util/result.hpp"

namespace ecocompute::meter {

/// How the user named the GPU (`--gpu`).
struct GpuSpec {
  enum class Kind { default_cuda, uuid, pci_bus_id, cuda_ordinal };
  Kind kind = Kind::default_cuda;
  std::string uuid;        ///< "GPU-…" for Kind::uuid
  std::string pci_bus_id;  ///< normalised "0000:19:00.0" for Kind::pci_bus_id
  int cuda_ordinal = 0;    ///< for Kind::cuda_ordinal and default_cuda
};

/// Parses a `--gpu` value: "" (the first visible CUDA device), "GPU-<uuid>", a PCI bus id
/// ("0000:19:00.0", "19:00.0", "00000000:19:00.0") or "cuda:N". Errors name the value.
Result<GpuSpec> parse_gpu_spec(const std::string& text);

/// Normalises a PCI bus id to "dddd:bb:dd.f" in lower-case hex; Error{invalid_argument} if malformed.
Result<std::string> normalize_pci_bus_id(const std::string& text);

/// A CUDA device as the CUDA driver sees it (honours CUDA_VISIBLE_DEVICES).
struct CudaDeviceId {
  int ordinal = 0;
  std::string uuid;        ///< "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
  std::string pci_bus_id;  ///< "dddd:bb:dd.0"
};

/// Returns the N-th visible CUDA device, read through libcuda.so.1 loaded at run time
/// (cuInit, cuDeviceGet, cuDeviceGetUuid_v2, cuDeviceGetAttribute). Creates no context.
/// Error{unavailable} when there is no CUDA driver, Error{not_found} when N is not visible.
Result<CudaDeviceId> visible_cuda_device(int ordinal);

/// The GPU a meter reads: its NVML handle and how it is known.
struct GpuDevice {
  nvml::Device handle = nullptr;
  std::string name;
  std::string uuid;
  std::string pci_bus_id;  ///< "dddd:bb:dd.f"
  std::string selected_by; ///< "uuid", "pci-bus-id", "cuda:N"
};

/// Resolves `spec` to an NVML handle: CUDA ordinals through the CUDA driver, then by UUID (fallback:
/// PCI bus id); UUIDs and PCI ids directly through NVML (no CUDA driver needed).
Result<GpuDevice> select_gpu(const NvmlLibrary& nvml, const GpuSpec& spec);

}  // namespace ecocompute::meter
