// Where llama.cpp's kernels switch (see batch_regime.hpp for the source lines).
#include "decide/batch_regime.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "util/precision.hpp"

namespace ecocompute::decide {
namespace {

bool llama_kernels(std::string_view engine) { return engine_family(engine) == "llama.cpp"; }

bool quantized(std::string_view precision) { return !is_baseline_precision(precision); }

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

// ggml_cuda_should_use_mmvq: the largest batch the vector kernel takes for a format on an architecture.
int vector_kernel_limit(std::string_view precision, std::string_view arch) {
  const bool k2_to_5 = starts_with(precision, "Q2_K") || starts_with(precision, "Q3_K") || starts_with(precision, "Q4_K") ||
                       starts_with(precision, "Q5_K");
  if (arch == "ada") {
    if (starts_with(precision, "Q2_K")) return 4;
    if (starts_with(precision, "Q3_K")) return 6;
    if (starts_with(precision, "Q4_K") || starts_with(precision, "Q5_K")) return 7;
  }
  if (arch == "blackwell") {
    if (k2_to_5) return 5;
    if (starts_with(precision, "Q6_K")) return 7;
  }
  return 8;  // MMVQ_MAX_BATCH_SIZE
}

// calc_nwarps: the vector kernel runs 4 warps a block up to this many sequences, 2 above.
constexpr int kVectorKernelWideBlocks = 4;
// ggml_cuda_should_use_mmf: F16 weights by mul_mat_f up to this many sequences, cuBLAS above.
constexpr int kFloatKernelLimit = 16;

// The largest batch of each regime of a quantized format, regimes 0…3 (regime 4 has no end).
struct QuantizedBounds {
  int wide, vector, matrix;
};
QuantizedBounds quantized_bounds(std::string_view precision, std::string_view arch) {
  const int limit = vector_kernel_limit(precision, arch);
  return {std::min(kVectorKernelWideBlocks, limit), limit, kFloatKernelLimit};
}

}  // namespace

std::string engine_family(std::string_view engine) {
  if (engine == "llama.cpp" || engine == "llama-server") return "llama.cpp";
  return std::string(engine);
}

int batch_regime(std::string_view engine, std::string_view precision, std::string_view arch, int batch) {
  if (batch <= 1) return 0;
  if (!llama_kernels(engine)) return 1;
  if (!quantized(precision)) return batch <= kFloatKernelLimit ? 1 : 2;
  const QuantizedBounds b = quantized_bounds(precision, arch);
  if (batch <= b.wide) return 1;
  if (batch <= b.vector) return 2;
  return batch <= b.matrix ? 3 : 4;
}

int regime_first_batch(std::string_view engine, std::string_view precision, std::string_view arch, int regime) {
  if (regime <= 1 || !llama_kernels(engine)) return 1;
  if (!quantized(precision)) return kFloatKernelLimit;
  const QuantizedBounds b = quantized_bounds(precision, arch);
  return regime == 2 ? b.wide : regime == 3 ? b.vector : b.matrix;
}

double regime_coordinate(std::string_view engine, std::string_view precision, std::string_view arch, int batch) {
  return regime_coordinate(engine, precision, arch, batch, batch_regime(engine, precision, arch, batch));
}

double regime_coordinate(std::string_view engine, std::string_view precision, std::string_view arch, int batch, int regime) {
  if (regime == 0) return 0.0;
  const double first = regime_first_batch(engine, precision, arch, regime);
  const bool vector_kernel = llama_kernels(engine) && quantized(precision) && regime <= 2;
  if (!vector_kernel) return std::log(batch / first);
  const QuantizedBounds b = quantized_bounds(precision, arch);
  const double last = regime == 1 ? b.wide : b.vector;
  return std::log(last / first) * (batch - first) / (last - first);
}

std::string regime_text(std::string_view engine, std::string_view precision, std::string_view arch, int regime) {
  if (regime == 0) return "batch 1";
  if (!llama_kernels(engine)) return fmt::format("batch above 1 with {}", engine);
  if (!quantized(precision)) {
    return regime == 1 ? fmt::format("batch 2–{}: F16 weights by llama.cpp's float matrix kernel (mul_mat_f)", kFloatKernelLimit)
                       : fmt::format("batch above {}: F16 weights by cuBLAS", kFloatKernelLimit);
  }
  const QuantizedBounds b = quantized_bounds(precision, arch);
  const int first = regime_first_batch(engine, precision, arch, regime) + 1;
  const auto range = [&](int last) { return first == last ? fmt::format("batch {}", last) : fmt::format("batch {}–{}", first, last); };
  switch (regime) {
    case 1: return range(b.wide) + ": quantized weights by the vector kernel (MMVQ, 4 warps a block), F16 by mul_mat_f";
    case 2: return range(b.vector) + ": quantized weights by the vector kernel (MMVQ, 2 warps a block), F16 by mul_mat_f";
    case 3: return range(b.matrix) + ": quantized weights by the matrix kernel (MMQ), F16 by mul_mat_f";
    default: return fmt::format("batch above {}: quantized weights by the matrix kernel (MMQ), F16 by cuBLAS", b.matrix);
  }
}

}  // namespace ecocompute::decide
