// NvmlLibrary: dlopen of NVML, the function table, the one table of NVML return codes, typed wrappers.
#include "meter/nvml_library.hpp"

#include <dlfcn.h>

#include <array>
#include <cstdlib>
#include <utility>

#include <fmt/format.h>

#include "util/log.hpp"

namespace ecocompute::meter {
namespace nvml {

double value_as_double(const Value& value, int value_type) noexcept {
  switch (value_type) {
    case value_double: return value.dVal;
    case value_unsigned_int: return static_cast<double>(value.uiVal);
    case value_unsigned_long: return static_cast<double>(value.ulVal);
    case value_unsigned_long_long: return static_cast<double>(value.ullVal);
    case value_signed_long_long: return static_cast<double>(value.sllVal);
    case value_signed_int: return static_cast<double>(value.siVal);
    case value_unsigned_short: return static_cast<double>(value.usVal);
    default: return static_cast<double>(value.uiVal);
  }
}

namespace {
struct CodeEntry {
  Return code;
  const char* name;
  ErrorCode error;
};
// The one table from NVML return codes to our error codes (nvml.h, nvmlReturn_enum).
constexpr std::array<CodeEntry, 30> code_table{{
    {0, "NVML_SUCCESS", ErrorCode::internal},
    {1, "NVML_ERROR_UNINITIALIZED", ErrorCode::internal},
    {2, "NVML_ERROR_INVALID_ARGUMENT", ErrorCode::invalid_argument},
    {3, "NVML_ERROR_NOT_SUPPORTED", ErrorCode::unavailable},
    {4, "NVML_ERROR_NO_PERMISSION", ErrorCode::unavailable},
    {5, "NVML_ERROR_ALREADY_INITIALIZED", ErrorCode::internal},
    {6, "NVML_ERROR_NOT_FOUND", ErrorCode::not_found},
    {7, "NVML_ERROR_INSUFFICIENT_SIZE", ErrorCode::internal},
    {8, "NVML_ERROR_INSUFFICIENT_POWER", ErrorCode::device},
    {9, "NVML_ERROR_DRIVER_NOT_LOADED", ErrorCode::unavailable},
    {10, "NVML_ERROR_TIMEOUT", ErrorCode::device},
    {11, "NVML_ERROR_IRQ_ISSUE", ErrorCode::device},
    {12, "NVML_ERROR_LIBRARY_NOT_FOUND", ErrorCode::unavailable},
    {13, "NVML_ERROR_FUNCTION_NOT_FOUND", ErrorCode::unavailable},
    {14, "NVML_ERROR_CORRUPTED_INFOROM", ErrorCode::device},
    {15, "NVML_ERROR_GPU_IS_LOST", ErrorCode::device},
    {16, "NVML_ERROR_RESET_REQUIRED", ErrorCode::device},
    {17, "NVML_ERROR_OPERATING_SYSTEM", ErrorCode::device},
    {18, "NVML_ERROR_LIB_RM_VERSION_MISMATCH", ErrorCode::unavailable},
    {19, "NVML_ERROR_IN_USE", ErrorCode::device},
    {20, "NVML_ERROR_MEMORY", ErrorCode::device},
    {21, "NVML_ERROR_NO_DATA", ErrorCode::device},
    {22, "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED", ErrorCode::unavailable},
    {23, "NVML_ERROR_INSUFFICIENT_RESOURCES", ErrorCode::device},
    {24, "NVML_ERROR_FREQ_NOT_SUPPORTED", ErrorCode::unavailable},
    {25, "NVML_ERROR_ARGUMENT_VERSION_MISMATCH", ErrorCode::internal},
    {26, "NVML_ERROR_DEPRECATED", ErrorCode::unavailable},
    {27, "NVML_ERROR_NOT_READY", ErrorCode::device},
    {28, "NVML_ERROR_GPU_NOT_FOUND", ErrorCode::not_found},
    {29, "NVML_ERROR_INVALID_STATE", ErrorCode::device},
}};

const CodeEntry* find_code(Return code) {
  for (const CodeEntry& entry : code_table) {
    if (entry.code == code) return &entry;
  }
  return nullptr;
}
}  // namespace

std::string return_name(Return code) {
  if (const CodeEntry* entry = find_code(code)) return entry->name;
  if (code == 999) return "NVML_ERROR_UNKNOWN";
  return fmt::format("NVML_ERROR_{}", code);
}

}  // namespace nvml

namespace {
template <typename F>
void bind(void* handle, F& slot, const char* symbol) {
  slot = reinterpret_cast<F>(dlsym(handle, symbol));
}

std::string c_string(const char* buffer, std::size_t size) {
  std::size_t n = 0;
  while (n < size && buffer[n] != '\0') ++n;
  return std::string(buffer, n);
}
}  // namespace

std::string NvmlLibrary::default_path() {
  const char* env = std::getenv("ECOCOMPUTE_NVML_LIBRARY");
  if (env != nullptr && *env != '\0') return env;
  return "libnvidia-ml.so.1";
}

Result<std::shared_ptr<NvmlLibrary>> NvmlLibrary::open(const std::string& path) {
  const std::string chosen = path.empty() ? default_path() : path;
  dlerror();
  void* handle = dlopen(chosen.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return unexpected(ErrorCode::unavailable,
                      fmt::format("no GPU energy source: cannot load NVML ({}): {}", chosen,
                                  why != nullptr ? why : "unknown dlopen error"));
  }
  std::shared_ptr<NvmlLibrary> library(new NvmlLibrary(chosen, handle));
  nvml::Functions& fn = library->fn_;
  bind(handle, fn.init_v2, "nvmlInit_v2");
  bind(handle, fn.shutdown, "nvmlShutdown");
  bind(handle, fn.error_string, "nvmlErrorString");
  bind(handle, fn.system_get_driver_version, "nvmlSystemGetDriverVersion");
  bind(handle, fn.system_get_cuda_driver_version_v2, "nvmlSystemGetCudaDriverVersion_v2");
  bind(handle, fn.device_get_count_v2, "nvmlDeviceGetCount_v2");
  bind(handle, fn.device_get_handle_by_index_v2, "nvmlDeviceGetHandleByIndex_v2");
  bind(handle, fn.device_get_handle_by_uuid, "nvmlDeviceGetHandleByUUID");
  bind(handle, fn.device_get_handle_by_pci_bus_id_v2, "nvmlDeviceGetHandleByPciBusId_v2");
  bind(handle, fn.device_get_name, "nvmlDeviceGetName");
  bind(handle, fn.device_get_uuid, "nvmlDeviceGetUUID");
  bind(handle, fn.device_get_pci_info_v3, "nvmlDeviceGetPciInfo_v3");
  bind(handle, fn.device_get_total_energy_consumption, "nvmlDeviceGetTotalEnergyConsumption");
  bind(handle, fn.device_get_power_usage, "nvmlDeviceGetPowerUsage");
  bind(handle, fn.device_get_field_values, "nvmlDeviceGetFieldValues");
  bind(handle, fn.device_get_samples, "nvmlDeviceGetSamples");
  bind(handle, fn.device_get_temperature, "nvmlDeviceGetTemperature");
  bind(handle, fn.device_get_clock_info, "nvmlDeviceGetClockInfo");
  bind(handle, fn.device_get_enforced_power_limit, "nvmlDeviceGetEnforcedPowerLimit");
  bind(handle, fn.device_get_current_clocks_event_reasons, "nvmlDeviceGetCurrentClocksEventReasons");
  if (fn.device_get_current_clocks_event_reasons == nullptr) {
    bind(handle, fn.device_get_current_clocks_event_reasons, "nvmlDeviceGetCurrentClocksThrottleReasons");
  }
  bind(handle, fn.device_get_performance_state, "nvmlDeviceGetPerformanceState");
  bind(handle, fn.device_get_compute_running_processes_v3, "nvmlDeviceGetComputeRunningProcesses_v3");
  bind(handle, fn.device_get_vbios_version, "nvmlDeviceGetVbiosVersion");
  bind(handle, fn.device_get_ecc_mode, "nvmlDeviceGetEccMode");
  bind(handle, fn.device_get_architecture, "nvmlDeviceGetArchitecture");

  if (fn.init_v2 == nullptr || fn.shutdown == nullptr || fn.device_get_handle_by_uuid == nullptr ||
      fn.device_get_count_v2 == nullptr) {
    return unexpected(ErrorCode::unavailable,
                      fmt::format("no GPU energy source: {} does not export nvmlInit_v2, nvmlShutdown, "
                                  "nvmlDeviceGetCount_v2 and nvmlDeviceGetHandleByUUID", chosen));
  }
  const nvml::Return rc = fn.init_v2();
  if (rc != nvml::success) {
    Error cause = library->error("nvmlInit_v2", rc);
    fn.shutdown = nullptr;  // nothing to shut down
    return unexpected(Error{ErrorCode::unavailable, "no GPU energy source: NVML did not initialise", cause});
  }
  return library;
}

NvmlLibrary::~NvmlLibrary() {
  if (fn_.shutdown != nullptr) {
    const nvml::Return rc = fn_.shutdown();
    if (rc != nvml::success) log::warn("nvmlShutdown returned {}", nvml::return_name(rc));
  }
  if (handle_ != nullptr) dlclose(handle_);
}

Error NvmlLibrary::error(const char* function, nvml::Return code) const {
  ErrorCode mapped = ErrorCode::device;
  if (const auto* entry = nvml::find_code(code)) mapped = entry->error;
  std::string text;
  if (fn_.error_string != nullptr) {
    const char* s = fn_.error_string(code);
    if (s != nullptr) text = s;
  }
  return Error{mapped, fmt::format("{} failed: {} ({}){}{}", function, nvml::return_name(code), code,
                                   text.empty() ? "" : ": ", text)};
}

Error NvmlLibrary::missing(const char* function) const {
  return Error{ErrorCode::unavailable, fmt::format("{} is not exported by {}", function, path_)};
}

// Every wrapper below: missing symbol → unavailable; non-success → the mapped error naming the function.
#define ECO_NVML_CALL(slot, name, ...)                        \
  do {                                                        \
    if (fn_.slot == nullptr) return missing(name);            \
    const nvml::Return rc_ = fn_.slot(__VA_ARGS__);           \
    if (rc_ != nvml::success) return error(name, rc_);        \
  } while (false)

Result<std::string> NvmlLibrary::driver_version() const {
  char buffer[96] = {};
  ECO_NVML_CALL(system_get_driver_version, "nvmlSystemGetDriverVersion", buffer, sizeof buffer);
  return c_string(buffer, sizeof buffer);
}

Result<int> NvmlLibrary::cuda_driver_version() const {
  int version = 0;
  ECO_NVML_CALL(system_get_cuda_driver_version_v2, "nvmlSystemGetCudaDriverVersion_v2", &version);
  return version;
}

Result<unsigned int> NvmlLibrary::device_count() const {
  unsigned int count = 0;
  ECO_NVML_CALL(device_get_count_v2, "nvmlDeviceGetCount_v2", &count);
  return count;
}

Result<nvml::Device> NvmlLibrary::handle_by_index(unsigned int index) const {
  nvml::Device device = nullptr;
  ECO_NVML_CALL(device_get_handle_by_index_v2, "nvmlDeviceGetHandleByIndex_v2", index, &device);
  return device;
}

Result<nvml::Device> NvmlLibrary::handle_by_uuid(const std::string& uuid_text) const {
  nvml::Device device = nullptr;
  ECO_NVML_CALL(device_get_handle_by_uuid, "nvmlDeviceGetHandleByUUID", uuid_text.c_str(), &device);
  return device;
}

Result<nvml::Device> NvmlLibrary::handle_by_pci_bus_id(const std::string& pci_bus_id) const {
  nvml::Device device = nullptr;
  ECO_NVML_CALL(device_get_handle_by_pci_bus_id_v2, "nvmlDeviceGetHandleByPciBusId_v2", pci_bus_id.c_str(),
                &device);
  return device;
}

Result<std::string> NvmlLibrary::name(nvml::Device device) const {
  char buffer[256] = {};
  ECO_NVML_CALL(device_get_name, "nvmlDeviceGetName", device, buffer, sizeof buffer);
  return c_string(buffer, sizeof buffer);
}

Result<std::string> NvmlLibrary::uuid(nvml::Device device) const {
  char buffer[96] = {};
  ECO_NVML_CALL(device_get_uuid, "nvmlDeviceGetUUID", device, buffer, sizeof buffer);
  return c_string(buffer, sizeof buffer);
}

Result<nvml::PciInfo> NvmlLibrary::pci_info(nvml::Device device) const {
  nvml::PciInfo info{};
  ECO_NVML_CALL(device_get_pci_info_v3, "nvmlDeviceGetPciInfo_v3", device, &info);
  return info;
}

Result<std::uint64_t> NvmlLibrary::total_energy_mj(nvml::Device device) const {
  unsigned long long energy = 0;
  ECO_NVML_CALL(device_get_total_energy_consumption, "nvmlDeviceGetTotalEnergyConsumption", device, &energy);
  return static_cast<std::uint64_t>(energy);
}

Result<unsigned int> NvmlLibrary::power_usage_mw(nvml::Device device) const {
  unsigned int power = 0;
  ECO_NVML_CALL(device_get_power_usage, "nvmlDeviceGetPowerUsage", device, &power);
  return power;
}

Result<double> NvmlLibrary::field_value(nvml::Device device, unsigned int field_id) const {
  nvml::FieldValue value{};
  value.fieldId = field_id;
  ECO_NVML_CALL(device_get_field_values, "nvmlDeviceGetFieldValues", device, 1, &value);
  if (value.nvmlReturn != nvml::success) {
    return error(fmt::format("nvmlDeviceGetFieldValues(field {})", field_id).c_str(), value.nvmlReturn);
  }
  return nvml::value_as_double(value.value, value.valueType);
}

Result<std::vector<std::pair<std::uint64_t, double>>> NvmlLibrary::samples(nvml::Device device, int sample_type,
                                                                           std::uint64_t last_seen_us) const {
  if (fn_.device_get_samples == nullptr) return missing("nvmlDeviceGetSamples");
  int type = 0;
  unsigned int count = 0;
  nvml::Return rc = fn_.device_get_samples(device, sample_type, last_seen_us, &type, &count, nullptr);
  if (rc == nvml::error_not_found) return std::vector<std::pair<std::uint64_t, double>>{};
  if (rc != nvml::success && rc != nvml::error_insufficient_size) return error("nvmlDeviceGetSamples", rc);
  std::vector<nvml::Sample> samples(count + 8u);  // the buffer can grow between the two calls
  count = static_cast<unsigned int>(samples.size());
  rc = fn_.device_get_samples(device, sample_type, last_seen_us, &type, &count, samples.data());
  if (rc == nvml::error_not_found) return std::vector<std::pair<std::uint64_t, double>>{};
  if (rc != nvml::success) return error("nvmlDeviceGetSamples", rc);
  std::vector<std::pair<std::uint64_t, double>> out;
  out.reserve(count);
  for (unsigned int i = 0; i < count && i < samples.size(); ++i) {
    out.emplace_back(samples[i].timeStamp, nvml::value_as_double(samples[i].sampleValue, type));
  }
  return out;
}

Result<std::vector<std::pair<std::uint64_t, double>>> NvmlLibrary::power_samples(
    nvml::Device device, std::uint64_t last_seen_us) const {
  return samples(device, nvml::total_power_samples, last_seen_us);
}

Result<std::vector<std::pair<std::uint64_t, double>>> NvmlLibrary::busy_samples(
    nvml::Device device, std::uint64_t last_seen_us) const {
  return samples(device, nvml::gpu_utilization_samples, last_seen_us);
}

Result<unsigned int> NvmlLibrary::temperature_c(nvml::Device device) const {
  unsigned int value = 0;
  ECO_NVML_CALL(device_get_temperature, "nvmlDeviceGetTemperature", device, nvml::temperature_gpu, &value);
  return value;
}

Result<unsigned int> NvmlLibrary::clock_mhz(nvml::Device device, int clock_type) const {
  unsigned int value = 0;
  ECO_NVML_CALL(device_get_clock_info, "nvmlDeviceGetClockInfo", device, clock_type, &value);
  return value;
}

Result<unsigned int> NvmlLibrary::enforced_power_limit_mw(nvml::Device device) const {
  unsigned int value = 0;
  ECO_NVML_CALL(device_get_enforced_power_limit, "nvmlDeviceGetEnforcedPowerLimit", device, &value);
  return value;
}

Result<std::uint64_t> NvmlLibrary::clocks_event_reasons(nvml::Device device) const {
  unsigned long long value = 0;
  ECO_NVML_CALL(device_get_current_clocks_event_reasons, "nvmlDeviceGetCurrentClocksEventReasons", device,
                &value);
  return static_cast<std::uint64_t>(value);
}

Result<int> NvmlLibrary::performance_state(nvml::Device device) const {
  int value = 0;
  ECO_NVML_CALL(device_get_performance_state, "nvmlDeviceGetPerformanceState", device, &value);
  return value;
}

Result<std::vector<GpuProcess>> NvmlLibrary::compute_processes(nvml::Device device) const {
  if (fn_.device_get_compute_running_processes_v3 == nullptr) {
    return missing("nvmlDeviceGetComputeRunningProcesses_v3");
  }
  std::vector<nvml::ProcessInfo> infos(64);
  for (int attempt = 0; attempt < 4; ++attempt) {
    auto count = static_cast<unsigned int>(infos.size());
    const nvml::Return rc = fn_.device_get_compute_running_processes_v3(device, &count, infos.data());
    if (rc == nvml::error_insufficient_size) {
      infos.resize(static_cast<std::size_t>(count) + 16u);
      continue;
    }
    if (rc != nvml::success) return error("nvmlDeviceGetComputeRunningProcesses_v3", rc);
    std::vector<GpuProcess> out;
    for (unsigned int i = 0; i < count && i < infos.size(); ++i) {
      out.push_back(GpuProcess{infos[i].pid, infos[i].usedGpuMemory});
    }
    return out;
  }
  return error("nvmlDeviceGetComputeRunningProcesses_v3", nvml::error_insufficient_size);
}

Result<std::string> NvmlLibrary::vbios_version(nvml::Device device) const {
  char buffer[64] = {};
  ECO_NVML_CALL(device_get_vbios_version, "nvmlDeviceGetVbiosVersion", device, buffer, sizeof buffer);
  return c_string(buffer, sizeof buffer);
}

Result<bool> NvmlLibrary::ecc_enabled(nvml::Device device) const {
  int current = 0;
  int pending = 0;
  ECO_NVML_CALL(device_get_ecc_mode, "nvmlDeviceGetEccMode", device, &current, &pending);
  return current != 0;
}

Result<unsigned int> NvmlLibrary::architecture(nvml::Device device) const {
  unsigned int value = 0;
  ECO_NVML_CALL(device_get_architecture, "nvmlDeviceGetArchitecture", device, &value);
  return value;
}

#undef ECO_NVML_CALL

std::string architecture_class(unsigned int nvml_architecture) {
  // nvmlDeviceArchitecture_t: NVML_DEVICE_ARCH_KEPLER = 2 … HOPPER = 9, BLACKWELL = 10.
  switch (nvml_architecture) {
    case 2: return "kepler";
    case 3: return "maxwell";
    case 4: return "pascal";
    case 5: return "volta";
    case 6: return "turing";
    case 7: return "ampere";
    case 8: return "ada";
    case 9: return "hopper";
    case 10: return "blackwell";
    default: return fmt::format("nvml-arch-{}", nvml_architecture);
  }
}

std::vector<std::string> throttle_reason_names(std::uint64_t reasons) {
  // nvmlClocksEventReason* bits; gpu_idle (0x1) and applications_clocks (0x2) are not throttling.
  static constexpr std::array<std::pair<std::uint64_t, const char*>, 7> bits{{
      {0x4, "sw_power_cap"},
      {0x8, "hw_slowdown"},
      {0x10, "sync_boost"},
      {0x20, "sw_thermal_slowdown"},
      {0x40, "hw_thermal_slowdown"},
      {0x80, "hw_power_brake_slowdown"},
      {0x100, "display_clock_setting"},
  }};
  std::vector<std::string> names;
  for (const auto& [bit, label] : bits) {
    if ((reasons & bit) != 0) names.emplace_back(label);
  }
  return names;
}

}  // namespace ecocompute::meter
