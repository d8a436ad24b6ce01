// Listing the GPUs through NVML (loaded at run time).
#include "experiment/gpu_list.hpp"

#include "meter/nvml_library.hpp"

namespace ecocompute::experiment {

Result<std::vector<std::string>> list_gpu_uuids() {
  auto nvml = meter::NvmlLibrary::open();
  if (!nvml) return Error{ErrorCode::unavailable, "NVML is not usable", nvml.error()};
  auto count = (*nvml)->device_count();
  if (!count) return count.error();
  std::vector<std::string> uuids;
  for (unsigned int i = 0; i < *count; ++i) {
    auto handle = (*nvml)->handle_by_index(i);
    if (!handle) return handle.error();
    auto uuid = (*nvml)->uuid(*handle);
    if (!uuid) return uuid.error();
    uuids.push_back(*uuid);
  }
  return uuids;
}

}  // namespace ecocompute::experiment
