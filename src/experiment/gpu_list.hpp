// The GPUs of this host, for callers that place work on each (a sweep's one worker per GPU) and may
// not read the driver themselves.
#pragma once

#include <string>
#include <vector>

#include "util/result.hpp"

namespace ecocompute::experiment {

/// Returns the UUID ("GPU-…") of every GPU NVML lists, in NVML's order (possibly none).
/// Error{unavailable} when NVML cannot be loaded or answers with an error.
[[nodiscard]] Result<std::vector<std::string>> list_gpu_uuids();

}  // namespace ecocompute::experiment
