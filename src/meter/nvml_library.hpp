// NvmlLibrary: NVML loaded at run time with dlopen into a table of function pointers, with our own
// minimal declarations of the few NVML types we use (no NVML header, no link-time NVML).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "util/result.hpp"

namespace ecocompute::meter {

/// NVML's ABI, declared by us. Layouts follow nvml.h of driver branch 5xx; sizes are asserted.
namespace nvml {

using Return = int;  ///< nvmlReturn_t
struct DeviceSt;
using Device = DeviceSt*;  ///< nvmlDevice_t (opaque)

inline constexpr Return success = 0;
inline constexpr Return error_not_supported = 3;
inline constexpr Return error_not_found = 6;
inline constexpr Return error_insufficient_size = 7;

inline constexpr unsigned int field_power_average = 185;  ///< NVML_FI_DEV_POWER_AVERAGE (1-s average, mW)
inline constexpr unsigned int field_power_instant = 186;  ///< NVML_FI_DEV_POWER_INSTANT (mW)
inline constexpr int total_power_samples = 0;             ///< NVML_TOTAL_POWER_SAMPLES
inline constexpr int gpu_utilization_samples = 1;         ///< NVML_GPU_UTILIZATION_SAMPLES (% of time a kernel ran)
inline constexpr int temperature_gpu = 0;                 ///< NVML_TEMPERATURE_GPU
inline constexpr int clock_sm = 1;                        ///< NVML_CLOCK_SM
inline constexpr int clock_mem = 2;                       ///< NVML_CLOCK_MEM

/// nvmlValueType_t
enum ValueType : int {
  value_double = 0, value_unsigned_int = 1, value_unsigned_long = 2, value_unsigned_long_long = 3,
  value_signed_long_long = 4, value_signed_int = 5, value_unsigned_short = 6,
};

/// nvmlValue_t
union Value {
  double dVal;
  int siVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  signed long long sllVal;
  unsigned short usVal;
};

/// nvmlSample_t
struct Sample {
  unsigned long long timeStamp;  ///< CPU timestamp, microseconds
  Value sampleValue;
};

/// nvmlFieldValue_t
struct FieldValue {
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;
  long long latencyUsec;
  int valueType;  ///< ValueType
  Return nvmlReturn;
  Value value;
};

/// nvmlProcessInfo_t as used by nvmlDeviceGetComputeRunningProcesses_v3
struct ProcessInfo {
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

/// nvmlPciInfo_t as used by nvmlDeviceGetPciInfo_v3
struct PciInfo {
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
};

static_assert(sizeof(Value) == 8);
static_assert(sizeof(Sample) == 16);
static_assert(sizeof(FieldValue) == 40);
static_assert(sizeof(ProcessInfo) == 24);
static_assert(sizeof(PciInfo) == 68);

/// The function table. Optional entries are null when the loaded library does not export them.
struct Functions {
  Return (*init_v2)() = nullptr;
  Return (*shutdown)() = nullptr;
  const char* (*error_string)(Return) = nullptr;
  Return (*system_get_driver_version)(char*, unsigned int) = nullptr;
  Return (*system_get_cuda_driver_version_v2)(int*) = nullptr;
  Return (*device_get_count_v2)(unsigned int*) = nullptr;
  Return (*device_get_handle_by_index_v2)(unsigned int, Device*) = nullptr;
  Return (*device_get_handle_by_uuid)(const char*, Device*) = nullptr;
  Return (*device_get_handle_by_pci_bus_id_v2)(const char*, Device*) = nullptr;
  Return (*device_get_name)(Device, char*, unsigned int) = nullptr;
  Return (*device_get_uuid)(Device, char*, unsigned int) = nullptr;
  Return (*device_get_pci_info_v3)(Device, PciInfo*) = nullptr;
  Return (*device_get_total_energy_consumption)(Device, unsigned long long*) = nullptr;
  Return (*device_get_power_usage)(Device, unsigned int*) = nullptr;
  Return (*device_get_field_values)(Device, int, FieldValue*) = nullptr;
  Return (*device_get_samples)(Device, int, unsigned long long, int*, unsigned int*, Sample*) = nullptr;
  Return (*device_get_temperature)(Device, int, unsigned int*) = nullptr;
  Return (*device_get_clock_info)(Device, int, unsigned int*) = nullptr;
  Return (*device_get_enforced_power_limit)(Device, unsigned int*) = nullptr;
  /// nvmlDeviceGetCurrentClocksEventReasons, or the older nvmlDeviceGetCurrentClocksThrottleReasons.
  Return (*device_get_current_clocks_event_reasons)(Device, unsigned long long*) = nullptr;
  Return (*device_get_performance_state)(Device, int*) = nullptr;
  Return (*device_get_compute_running_processes_v3)(Device, unsigned int*, ProcessInfo*) = nullptr;
  Return (*device_get_vbios_version)(Device, char*, unsigned int) = nullptr;
  Return (*device_get_ecc_mode)(Device, int*, int*) = nullptr;
  Return (*device_get_architecture)(Device, unsigned int*) = nullptr;
};

/// Converts a sample or field value of the given type to a double.
double value_as_double(const Value& value, int value_type) noexcept;

/// Returns NVML's name for a return code ("NVML_ERROR_GPU_IS_LOST"), or "NVML_ERROR_<n>".
std::string return_name(Return code);

}  // namespace nvml

/// A process other than ours holding a compute context on the GPU.
struct GpuProcess {
  std::uint32_t pid = 0;
  std::uint64_t used_memory_bytes = 0;
};

/// Loaded and initialised NVML. Thread-safe to call from several threads (NVML itself is).
class NvmlLibrary {
 public:
  /// Returns the library that open() loads: $ECOCOMPUTE_NVML_LIBRARY if set, else "libnvidia-ml.so.1".
  static std::string default_path();

  /// Loads `path` (empty: default_path()) and calls nvmlInit_v2. Returns Error{unavailable,
  /// "no GPU energy source: …"} when the library is absent or does not initialise.
  static Result<std::shared_ptr<NvmlLibrary>> open(const std::string& path = "");

  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;
  /// Calls nvmlShutdown and unloads the library; never throws.
  ~NvmlLibrary();

  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  [[nodiscard]] const nvml::Functions& functions() const noexcept { return fn_; }
  /// Returns the raw dlopen handle (tests and the bench look up the fake's control functions).
  [[nodiscard]] void* handle() const noexcept { return handle_; }

  /// Returns the Error for `code` returned by NVML function `function` (one table maps codes).
  [[nodiscard]] Error error(const char* function, nvml::Return code) const;

  // Typed wrappers. Each returns the mapped Error naming the NVML function on failure, and
  // Error{unavailable} when the function is not exported by the loaded library.
  Result<std::string> driver_version() const;
  Result<int> cuda_driver_version() const;  ///< e.g. 13000 for CUDA 13.0
  Result<unsigned int> device_count() const;
  Result<nvml::Device> handle_by_index(unsigned int index) const;
  Result<nvml::Device> handle_by_uuid(const std::string& uuid) const;
  Result<nvml::Device> handle_by_pci_bus_id(const std::string& pci_bus_id) const;
  Result<std::string> name(nvml::Device device) const;
  Result<std::string> uuid(nvml::Device device) const;
  Result<nvml::PciInfo> pci_info(nvml::Device device) const;
  Result<std::uint64_t> total_energy_mj(nvml::Device device) const;
  Result<unsigned int> power_usage_mw(nvml::Device device) const;
  /// Reads one field (185, 186 …) and returns its value as a double in the field's unit.
  Result<double> field_value(nvml::Device device, unsigned int field_id) const;
  /// Returns the total-power samples newer than `last_seen_us` as (timestamp_us, milliwatts); an
  /// empty vector when there are none (NVML_ERROR_NOT_FOUND).
  Result<std::vector<std::pair<std::uint64_t, double>>> power_samples(nvml::Device device,
                                                                     std::uint64_t last_seen_us) const;
  /// Returns the GPU-utilization samples newer than `last_seen_us` as (timestamp_us, percent of the
  /// sample period during which a kernel ran); empty when there are none.
  Result<std::vector<std::pair<std::uint64_t, double>>> busy_samples(nvml::Device device,
                                                                    std::uint64_t last_seen_us) const;
  Result<unsigned int> temperature_c(nvml::Device device) const;
  Result<unsigned int> clock_mhz(nvml::Device device, int clock_type) const;
  Result<unsigned int> enforced_power_limit_mw(nvml::Device device) const;
  Result<std::uint64_t> clocks_event_reasons(nvml::Device device) const;
  Result<int> performance_state(nvml::Device device) const;
  Result<std::vector<GpuProcess>> compute_processes(nvml::Device device) const;
  Result<std::string> vbios_version(nvml::Device device) const;
  Result<bool> ecc_enabled(nvml::Device device) const;
  Result<unsigned int> architecture(nvml::Device device) const;

 private:
  NvmlLibrary(std::string path, void* handle) : path_(std::move(path)), handle_(handle) {}
  Error missing(const char* function) const;
  // nvmlDeviceGetSamples of one sampling type, newer than last_seen_us.
  Result<std::vector<std::pair<std::uint64_t, double>>> samples(nvml::Device device, int sample_type,
                                                                std::uint64_t last_seen_us) const;

  std::string path_;
  void* handle_ = nullptr;
  nvml::Functions fn_;
};

/// Returns the arch class for nvmlDeviceGetArchitecture's value: "turing", "ampere", "ada",
/// "hopper", "blackwell", older names, or "nvml-arch-<n>" for values we do not know.
std::string architecture_class(unsigned int nvml_architecture);

/// Returns the names of the bits of a clocks-event-reasons mask that indicate throttling
/// (sw_power_cap, hw_slowdown, sw_thermal, hw_thermal, hw_power_brake …; gpu_idle is not one).
std::vector<std::string> throttle_reason_names(std::uint64_t reasons);

}  // namespace ecocompute::meter
