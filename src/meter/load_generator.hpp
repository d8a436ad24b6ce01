// LoadGenerator: a small CUDA kernel that keeps the selected GPU busy, for `ecocompute selftest`.
// Compiled from load_generator.cu when ECOCOMPUTE_CUDA=ON; otherwise open() says it is absent.
#pragma once

#include <memory>
#include <string>

#include "util/result.hpp"
#include "util/units.hpp"

namespace ecocompute::meter {

/// Drives compute load on one GPU. Not thread-safe; the calling thread is the measured thread.
class LoadGenerator {
 public:
  virtual ~LoadGenerator() = default;

  /// Returns whether this build contains the CUDA load generator.
  static bool compiled_in() noexcept;
  /// Opens a CUDA context on the device whose UUID is `gpu_uuid` ("GPU-…"). Error{unavailable}
  /// without a CUDA build, without a CUDA device, or when no visible device has that UUID.
  static Result<std::unique_ptr<LoadGenerator>> open(const std::string& gpu_uuid);

  /// Runs fused multiply-add kernels on every SM for `duration` and returns after synchronizing.
  virtual Result<void> busy_for(Seconds duration) = 0;
};

}  // namespace ecocompute::meter
