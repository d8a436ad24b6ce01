// Device selection through ggml's backend registry; CUDA UUIDs resolved to PCI bus ids by the driver API.
#include "engine/device_selection.hpp"

#include <dlfcn.h>
#include <ggml-backend.h>

#include <array>
#include <cctype>
#include <cstdio>

#include "engine/llama_backend.hpp"

namespace ecocompute::engine {
namespace {

// ggml's devices carry a PCI bus id but no UUID, while the meter names GPUs by UUID (NVML). The CUDA
// driver API maps one to the other; it is loaded at run time so a CPU-only build never needs it.
// Signatures from cuda.h (stable since CUDA 4): CUresult is an int, CUdevice an int, CUuuid 16 bytes.
using CuInit = int (*)(unsigned int);
using CuDeviceGetCount = int (*)(int*);
using CuDeviceGet = int (*)(int*, int);
using CuDeviceGetUuid = int (*)(unsigned char*, int);
using CuDeviceGetPciBusId = int (*)(char*, int, int);

std::string format_uuid(const std::array<unsigned char, 16>& bytes) {
  // NVML's spelling: GPU-8-4-4-4-12 lower-case hex digits.
  std::string out = "GPU-";
  static constexpr char hex[] = "0123456789abcdef";
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out += '-';
    out += hex[bytes[i] >> 4];
    out += hex[bytes[i] & 0xF];
  }
  return out;
}

bool equals_ignore_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

std::string describe_gpus(const std::vector<GpuDevice>& gpus) {
  if (gpus.empty()) return "none (this llama.cpp build has no GPU backend, or no GPU is visible)";
  std::string text;
  for (const auto& gpu : gpus) {
    if (!text.empty()) text += ", ";
    text += gpu.name + " (" + gpu.description + (gpu.pci_bus_id.empty() ? "" : ", " + gpu.pci_bus_id) + ")";
  }
  return text;
}
}  // namespace

std::vector<GpuDevice> list_gpu_devices() {
  ensure_llama_backend();
  std::vector<GpuDevice> gpus;
  for (std::size_t i = 0; i < ggml_backend_dev_count(); ++i) {
    ggml_backend_dev_t dev = ggml_backend_dev_get(i);
    const auto type = ggml_backend_dev_type(dev);
    if (type != GGML_BACKEND_DEVICE_TYPE_GPU && type != GGML_BACKEND_DEVICE_TYPE_IGPU) continue;
    ggml_backend_dev_props props{};
    ggml_backend_dev_get_props(dev, &props);
    GpuDevice gpu;
    gpu.handle = dev;
    gpu.name = props.name != nullptr ? props.name : "";
    gpu.description = props.description != nullptr ? props.description : "";
    gpu.backend = ggml_backend_reg_name(ggml_backend_dev_backend_reg(dev));
    gpu.pci_bus_id = props.device_id != nullptr ? props.device_id : "";
    gpu.memory_free_bytes = props.memory_free;
    gpu.memory_total_bytes = props.memory_total;
    gpus.push_back(std::move(gpu));
  }
  return gpus;
}

std::optional<PciAddress> parse_pci_bus_id(std::string_view text) {
  PciAddress a;
  // %x stops at the first non-hex character, so a virtual-device suffix ("-v1") is ignored here and
  // such ids compare equal only by their physical location.
  const std::string s(text);
  int consumed = 0;
  if (std::sscanf(s.c_str(), "%x:%x:%x.%x%n", &a.domain, &a.bus, &a.device, &a.function, &consumed) != 4) {
    return std::nullopt;
  }
  return a;
}

Result<std::vector<CudaDeviceId>> list_cuda_devices() {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) return unexpected(ErrorCode::unavailable, "the CUDA driver (libcuda.so.1) is not loadable");
  // The library stays loaded: the CUDA backend uses the same driver for the rest of the process.
  auto init = reinterpret_cast<CuInit>(dlsym(lib, "cuInit"));
  auto count = reinterpret_cast<CuDeviceGetCount>(dlsym(lib, "cuDeviceGetCount"));
  auto get = reinterpret_cast<CuDeviceGet>(dlsym(lib, "cuDeviceGet"));
  auto get_uuid = reinterpret_cast<CuDeviceGetUuid>(dlsym(lib, "cuDeviceGetUuid_v2"));
  if (get_uuid == nullptr) get_uuid = reinterpret_cast<CuDeviceGetUuid>(dlsym(lib, "cuDeviceGetUuid"));
  auto get_pci = reinterpret_cast<CuDeviceGetPciBusId>(dlsym(lib, "cuDeviceGetPCIBusId"));
  if (init == nullptr || count == nullptr || get == nullptr || get_uuid == nullptr || get_pci == nullptr) {
    return unexpected(ErrorCode::unavailable, "libcuda.so.1 lacks the device API (cuDeviceGetUuid, cuDeviceGetPCIBusId)");
  }
  int n = 0;
  if (const int rc = init(0); rc != 0) {
    return unexpected(ErrorCode::device, "cuInit failed with CUresult " + std::to_string(rc));
  }
  if (const int rc = count(&n); rc != 0) {
    return unexpected(ErrorCode::device, "cuDeviceGetCount failed with CUresult " + std::to_string(rc));
  }
  std::vector<CudaDeviceId> devices;
  for (int ordinal = 0; ordinal < n; ++ordinal) {
    int dev = 0;
    std::array<unsigned char, 16> bytes{};
    std::array<char, 32> pci{};
    if (get(&dev, ordinal) != 0 || get_uuid(bytes.data(), dev) != 0 ||
        get_pci(pci.data(), static_cast<int>(pci.size()), dev) != 0) {
      return unexpected(ErrorCode::device, "cannot read the UUID and PCI bus id of CUDA device " + std::to_string(ordinal));
    }
    devices.push_back({format_uuid(bytes), std::string(pci.data())});
  }
  return devices;
}

Result<std::string> cuda_pci_bus_id_for_uuid(std::string_view uuid) {
  auto devices = list_cuda_devices();
  if (!devices) return Error{devices.error().code(), "cannot resolve GPU " + std::string(uuid), devices.error()};
  std::string seen;
  for (const auto& device : *devices) {
    if (equals_ignore_case(device.uuid, uuid)) return device.pci_bus_id;
    seen += (seen.empty() ? "" : ", ") + device.uuid;
  }
  return unexpected(ErrorCode::not_found, "no CUDA device has UUID " + std::string(uuid) + " (visible: " +
                                              (seen.empty() ? std::string("none") : seen) + ")");
}

Result<std::optional<GpuDevice>> select_gpu(std::string_view wanted) {
  std::vector<GpuDevice> gpus = list_gpu_devices();
  if (wanted.empty()) {
    if (gpus.empty()) return std::optional<GpuDevice>{};
    return std::optional<GpuDevice>{gpus.front()};
  }
  std::string pci_text(wanted);
  if (!parse_pci_bus_id(wanted)) {
    auto resolved = cuda_pci_bus_id_for_uuid(wanted);
    if (!resolved) return resolved.error();
    pci_text = *resolved;
  }
  const auto target = parse_pci_bus_id(pci_text);
  if (!target) return unexpected(ErrorCode::invalid_argument, "not a GPU UUID or PCI bus id: " + std::string(wanted));
  for (const auto& gpu : gpus) {
    const auto address = parse_pci_bus_id(gpu.pci_bus_id);
    if (address && *address == *target) return std::optional<GpuDevice>{gpu};
  }
  return unexpected(ErrorCode::not_found, "GPU " + std::string(wanted) + " (PCI " + pci_text +
                                              ") is not among the llama.cpp devices: " + describe_gpus(gpus));
}

}  // namespace ecocompute::engine
