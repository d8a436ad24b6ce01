// open_meter: the meter factory (NVML GPU → RAPL → none, with the reason for each fallback).
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "meter/meter.hpp"
#include "meter/nvml_meter.hpp"

namespace ecocompute::meter {

/// What open_meter() tries and how.
/// /sys/class/powercap, or $ECOCOMPUTE_POWERCAP_ROOT (a copied or scripted tree, for tests and for
/// containers that mount powercap elsewhere).
std::filesystem::path default_powercap_root();

struct MeterOptions {
  std::string gpu;                       ///< `--gpu` value; empty = the first visible CUDA device
  /// `--gpus`: two or more GPU UUIDs, read together (their energy summed, each kept); replaces `gpu`.
  std::vector<std::string> gpus;
  bool allow_shared = false;             ///< measure even when other processes use the GPU
  bool allow_fallback = true;            ///< fall back to RAPL, then to the null meter
  /// False when the measured work runs on the CPU: a GPU counter would read a device doing none of it.
  bool use_gpu = true;
  std::string nvml_library;              ///< empty: $ECOCOMPUTE_NVML_LIBRARY or libnvidia-ml.so.1
  std::filesystem::path rapl_root = default_powercap_root();
  /// Read the host's CPU package and DRAM energy (RAPL) beside a GPU meter's windows, where readable.
  bool host_energy = true;
  std::shared_ptr<Clock> clock = system_clock();
  NvmlMeterOptions nvml;

  /// Every GPU named, in order: `gpus`, else `gpu` alone (as describe_energy_sources takes them).
  [[nodiscard]] std::vector<std::string> gpu_specs() const { return gpus.empty() ? std::vector<std::string>{gpu} : gpus; }
};

/// Sets the GPUs `options` reads from `--gpu` and the split `--gpus` list: two or more are read
/// together (`gpus`); a lone `--gpus` entry is read as `--gpu` would read it.
void name_gpus(MeterOptions& options, const std::string& gpu, const std::vector<std::string>& gpus);

/// Returns the best meter available: NVML on the selected GPU, else RAPL, else the null meter whose
/// reason lists why each source was not used (each fallback is also logged as a warning).
/// Errors: a malformed `gpu` (invalid_argument); a `gpu` named explicitly but not usable, or a GPU
/// used by other compute processes without allow_shared (unavailable, listing the pids). With `gpus`
/// there is no fallback: every GPU named must be read, or it is an error naming the one that cannot.
Result<std::unique_ptr<Meter>> open_meter(const MeterOptions& options);

/// Returns the compute processes on `gpu` other than this process.
Result<std::vector<GpuProcess>> other_compute_processes(const NvmlLibrary& nvml, const GpuDevice& gpu);

}  // namespace ecocompute::meter
