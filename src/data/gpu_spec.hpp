// GPU specification table (memory bandwidth, dense FP16 tensor throughput, memory, board power) for
// the roofline latency model, and GPU name → architecture resolution.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.hpp"

namespace ecocompute::data {

/// Datasheet figures of one GPU (dense, no sparsity).
struct GpuSpec {
  std::string name;             ///< "H100 SXM"
  std::string arch;             ///< "hopper"
  double memory_gb = 0;
  double memory_bandwidth_gbps = 0;  ///< GB/s
  double fp16_tflops = 0;       ///< dense FP16/BF16 tensor TFLOP/s
  double int8_tops = 0;         ///< dense INT8 tensor TOP/s
  double board_power_w = 0;     ///< TDP / TGP
};

/// Returns the whole table.
const std::vector<GpuSpec>& gpu_specs();

/// Finds a GPU by its exact name or an alias, whatever the case, spacing, punctuation and vendor words
/// ("NVIDIA H100 80GB HBM3" → H100 SXM, "rtx4090" → RTX 4090, "A100" → A100 SXM). No prefix matching:
/// "H2000", "L40" or "T400" are unknown, "H200 NVL" is its own card. not_found names the input and
/// lists the known GPUs.
Result<GpuSpec> find_gpu(std::string_view name);

/// The architectures we know: turing, ampere, ada, hopper, blackwell.
const std::vector<std::string>& known_architectures();

/// Normalises an architecture name ("Ada Lovelace" → "ada", "sm_90" → "hopper"); not_found lists the
/// known ones.
Result<std::string> parse_architecture(std::string_view text);

/// Returns the architecture of a GPU name or of an architecture name.
Result<std::string> resolve_architecture(std::string_view gpu_or_arch);

/// Returns the name people use for an architecture ("Ada Lovelace", "Hopper"); the input when unknown.
std::string architecture_name(std::string_view arch);

/// Returns the architecture whose curves answer for `arch` when it has none of its own, where that
/// borrow is the published service's own (hopper → ampere: both data-centre parts with HBM); nullopt
/// for every other architecture: without a curve they get an error unless a borrow is asked for.
std::optional<std::string> default_borrow(std::string_view arch);

/// Returns the known architectures other than `arch`, nearest generation first (older first on a
/// tie): the order in which an explicitly requested borrow looks for a curve.
std::vector<std::string> architectures_nearest_to(std::string_view arch);

/// Returns the representative GPU of an architecture (the one the published data measured, else the
/// table's first of that architecture).
Result<GpuSpec> representative_gpu(std::string_view arch);

}  // namespace ecocompute::data
