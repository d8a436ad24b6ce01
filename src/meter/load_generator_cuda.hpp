// The CUDA side of LoadGenerator, kept to C++17 and std::string so nvcc compiles it under any host
// standard: each function returns an empty string on success, else what went wrong.
#pragma once

#include <string>

namespace ecocompute::meter::detail {

struct CudaBurner;

/// Opens a context on the visible CUDA device with UUID `gpu_uuid` and allocates a scratch buffer.
std::string cuda_burner_open(const std::string& gpu_uuid, CudaBurner** burner);
/// Runs FMA kernels on every SM for `seconds`, then synchronizes.
std::string cuda_burner_run(CudaBurner* burner, double seconds);
/// Frees the scratch buffer; never fails.
void cuda_burner_close(CudaBurner* burner) noexcept;

}  // namespace ecocompute::meter::detail
