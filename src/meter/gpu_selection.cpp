// GPU selection through the CUDA driver API (loaded at run time) and NVML's UUID / PCI look-ups.
#include "meter/gpu_selection.hpp"

#include <dlfcn.h>

#include <cctype>
#include <cstring>
#include <charconv>
#include <mutex>
#include <regex>

#include <fmt/format.h>

namespace ecocompute::meter {
namespace {

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// The CUDA driver API entries we use (cuda.h); CUresult 0 is CUDA_SUCCESS.
struct CudaDriver {
  using CUresult = int;
  CUresult (*cu_init)(unsigned int) = nullptr;
  CUresult (*cu_device_get_count)(int*) = nullptr;
  CUresult (*cu_device_get)(int*, int) = nullptr;
  CUresult (*cu_device_get_uuid)(unsigned char*, int) = nullptr;  // CUuuid is 16 bytes
  CUresult (*cu_device_get_attribute)(int*, int, int) = nullptr;
  std::string load_error;
};

constexpr int attribute_pci_bus_id = 33;     // CU_DEVICE_ATTRIBUTE_PCI_BUS_ID
constexpr int attribute_pci_device_id = 34;  // CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID
constexpr int attribute_pci_domain_id = 50;  // CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID

// Loaded once per process and kept: the CUDA driver is not meant to be unloaded.
const CudaDriver& cuda_driver() {
  static CudaDriver driver;
  static std::once_flag once;
  std::call_once(once, [] {
    void* handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
      const char* why = dlerror();
      driver.load_error = fmt::format("no CUDA driver: cannot load libcuda.so.1: {}", why ? why : "unknown");
      return;
    }
    driver.cu_init = reinterpret_cast<decltype(driver.cu_init)>(dlsym(handle, "cuInit"));
    driver.cu_device_get_count = reinterpret_cast<decltype(driver.cu_device_get_count)>(dlsym(handle, "cuDeviceGetCount"));
    driver.cu_device_get = reinterpret_cast<decltype(driver.cu_device_get)>(dlsym(handle, "cuDeviceGet"));
    driver.cu_device_get_uuid = reinterpret_cast<decltype(driver.cu_device_get_uuid)>(dlsym(handle, "cuDeviceGetUuid_v2"));
    if (driver.cu_device_get_uuid == nullptr) {
      driver.cu_device_get_uuid = reinterpret_cast<decltype(driver.cu_device_get_uuid)>(dlsym(handle, "cuDeviceGetUuid"));
    }
    driver.cu_device_get_attribute =
        reinterpret_cast<decltype(driver.cu_device_get_attribute)>(dlsym(handle, "cuDeviceGetAttribute"));
    if (!driver.cu_init || !driver.cu_device_get_count || !driver.cu_device_get || !driver.cu_device_get_uuid ||
        !driver.cu_device_get_attribute) {
      driver.load_error = "no CUDA driver: libcuda.so.1 lacks cuInit/cuDeviceGet/cuDeviceGetUuid/cuDeviceGetAttribute";
      driver.cu_init = nullptr;
      return;
    }
    const int rc = driver.cu_init(0);
    if (rc != 0) {
      driver.load_error = fmt::format("no CUDA device: cuInit failed with CUresult {}", rc);
      driver.cu_init = nullptr;
    }
  });
  return driver;
}

std::string format_uuid(const unsigned char bytes[16]) {
  std::string hex;
  for (int i = 0; i < 16; ++i) {
    hex += fmt::format("{:02x}", bytes[i]);
    if (i == 3 || i == 5 || i == 7 || i == 9) hex += '-';
  }
  return "GPU-" + hex;
}

}  // namespace

Result<std::string> normalize_pci_bus_id(const std::string& text) {
  static const std::regex pattern(R"(^(?:([0-9a-fA-F]{1,8}):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})\.([0-7])$)");
  std::smatch match;
  if (!std::regex_match(text, match, pattern)) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("'{}' is not a PCI bus id (expected e.g. 0000:19:00.0)", text));
  }
  auto hex = [](const std::string& s) { return s.empty() ? 0u : static_cast<unsigned>(std::stoul(s, nullptr, 16)); };
  return fmt::format("{:04x}:{:02x}:{:02x}.{}", hex(match[1].str()), hex(match[2].str()), hex(match[3].str()),
                     match[4].str());
}

Result<GpuSpec> parse_gpu_spec(const std::string& text) {
  GpuSpec spec;
  if (text.empty()) return spec;
  if (text.rfind("GPU-", 0) == 0 || text.rfind("gpu-", 0) == 0) {
    static const std::regex uuid(R"(^GPU-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$)",
                                 std::regex::icase);
    if (!std::regex_match(text, uuid)) {
      return unexpected(ErrorCode::invalid_argument,
                        fmt::format("--gpu '{}': a GPU UUID looks like GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", text));
    }
    spec.kind = GpuSpec::Kind::uuid;
    spec.uuid = "GPU-" + lower(text.substr(4));
    return spec;
  }
  if (text.rfind("cuda:", 0) == 0) {
    const std::string digits = text.substr(5);
    int ordinal = -1;
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), ordinal);
    if (digits.empty() || ec != std::errc{} || ptr != digits.data() + digits.size() || ordinal < 0) {
      return unexpected(ErrorCode::invalid_argument, fmt::format("--gpu '{}': expected cuda:N with N ≥ 0", text));
    }
    spec.kind = GpuSpec::Kind::cuda_ordinal;
    spec.cuda_ordinal = ordinal;
    return spec;
  }
  auto pci = normalize_pci_bus_id(text);
  if (!pci) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("--gpu '{}': expected GPU-<uuid>, a PCI bus id (0000:19:00.0) or cuda:N", text));
  }
  spec.kind = GpuSpec::Kind::pci_bus_id;
  spec.pci_bus_id = *pci;
  return spec;
}

Result<CudaDeviceId> visible_cuda_device(int ordinal) {
  const CudaDriver& cuda = cuda_driver();
  if (cuda.cu_init == nullptr) return unexpected(ErrorCode::unavailable, cuda.load_error);
  int count = 0;
  if (const int rc = cuda.cu_device_get_count(&count); rc != 0) {
    return unexpected(ErrorCode::unavailable, fmt::format("cuDeviceGetCount failed with CUresult {}", rc));
  }
  if (ordinal >= count) {
    return unexpected(ErrorCode::not_found,
                      fmt::format("cuda:{} is not visible: {} CUDA device(s) visible (CUDA_VISIBLE_DEVICES applies)",
                                  ordinal, count));
  }
  int device = 0;
  if (const int rc = cuda.cu_device_get(&device, ordinal); rc != 0) {
    return unexpected(ErrorCode::unavailable, fmt::format("cuDeviceGet({}) failed with CUresult {}", ordinal, rc));
  }
  unsigned char uuid[16] = {};
  if (const int rc = cuda.cu_device_get_uuid(uuid, device); rc != 0) {
    return unexpected(ErrorCode::unavailable, fmt::format("cuDeviceGetUuid(cuda:{}) failed with CUresult {}", ordinal, rc));
  }
  int domain = 0, bus = 0, dev = 0;
  cuda.cu_device_get_attribute(&domain, attribute_pci_domain_id, device);
  cuda.cu_device_get_attribute(&bus, attribute_pci_bus_id, device);
  cuda.cu_device_get_attribute(&dev, attribute_pci_device_id, device);
  return CudaDeviceId{ordinal, format_uuid(uuid), fmt::format("{:04x}:{:02x}:{:02x}.0", domain, bus, dev)};
}

Result<GpuDevice> select_gpu(const NvmlLibrary& nvml, const GpuSpec& spec) {
  GpuDevice gpu;
  Result<nvml::Device> handle = Error{ErrorCode::internal, "unset"};
  switch (spec.kind) {
    case GpuSpec::Kind::uuid:
      handle = nvml.handle_by_uuid(spec.uuid);
      gpu.selected_by = "uuid";
      break;
    case GpuSpec::Kind::pci_bus_id:
      handle = nvml.handle_by_pci_bus_id(spec.pci_bus_id);
      gpu.selected_by = "pci-bus-id";
      break;
    case GpuSpec::Kind::default_cuda:
    case GpuSpec::Kind::cuda_ordinal: {
      auto cuda = visible_cuda_device(spec.cuda_ordinal);
      if (!cuda) {
        return unexpected(Error{cuda.error().code(),
                                fmt::format("cannot resolve cuda:{} to a GPU (name it with --gpu GPU-<uuid> or a PCI "
                                            "bus id)", spec.cuda_ordinal),
                                cuda.error()});
      }
      gpu.selected_by = fmt::format("cuda:{}", spec.cuda_ordinal);
      handle = nvml.handle_by_uuid(cuda->uuid);
      if (!handle) handle = nvml.handle_by_pci_bus_id(cuda->pci_bus_id);
      break;
    }
  }
  if (!handle) {
    return unexpected(Error{handle.error().code() == ErrorCode::not_found ? ErrorCode::not_found : ErrorCode::device,
                            "NVML does not know the selected GPU", handle.error()});
  }
  gpu.handle = *handle;
  auto name = nvml.name(gpu.handle);
  if (!name) return name.error();
  auto uuid = nvml.uuid(gpu.handle);
  if (!uuid) return uuid.error();
  gpu.name = *name;
  gpu.uuid = *uuid;
  if (auto pci = nvml.pci_info(gpu.handle)) {
    auto normalized = normalize_pci_bus_id(std::string(pci->busId, strnlen(pci->busId, sizeof pci->busId)));
    gpu.pci_bus_id = normalized ? *normalized : std::string(pci->busId, strnlen(pci->busId, sizeof pci->busId));
  }
  return gpu;
}

}  // namespace ecocompute::meter
