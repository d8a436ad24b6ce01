// What the GPU tests share: they run only on a machine with a GPU and a CUDA build (ctest -L gpu,
// or bin/gpu_tests in the bundle scripts/device/package.sh makes), and fail, not skip, without one.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "engine/device_selection.hpp"

namespace ecocompute::gpu_testing {

/// Fails the test when llama.cpp has no GPU backend device here.
inline void require_gpu() {
  if (engine::list_gpu_devices().empty()) {
    FAIL() << "no GPU backend device: the gpu tests need a GPU and llama.cpp built with CUDA "
              "(scripts/build.sh --cuda, or the bundle of scripts/device/package.sh)";
  }
}

/// The ecocompute binary: $ECOCOMPUTE_BINARY on the GPU machine, else the one this build made.
inline std::string binary() {
  const char* env = std::getenv("ECOCOMPUTE_BINARY");
  return env != nullptr && *env != '\0' ? env : ECOCOMPUTE_BINARY;
}

/// The shipped data folder: $ECOCOMPUTE_DATA_DIR on the GPU machine, else the source tree's.
inline std::filesystem::path data_dir() {
  const char* env = std::getenv("ECOCOMPUTE_DATA_DIR");
  return env != nullptr && *env != '\0' ? std::filesystem::path(env) : std::filesystem::path(ECOCOMPUTE_SOURCE_DIR) / "data";
}

}  // namespace ecocompute::gpu_testing
