// Where llama.cpp's kernels switch (see batch_regime.hpp for the source lines).
#include "decide/batch_regime.hpp"

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

}  // namespace

std::string engine_family(std::string_view engine) {
  if (engine == "llama.cpp" || engine == "llama-server") return "llama.cpp";
  return std::string(engine);
}

int batch_regime(std::string_view engine, std::string_view precision, std::string_view arch, int batch) {
  if (batch <= 1) return 0;
  if (llama_kernels(engine) && quantized(precision)) return batch <= vector_kernel_limit(precision, arch) ? 1 : 2;
  return 1;
}

int regime_first_batch(std::string_view /*engine*/, std::string_view precision, std::string_view arch, int regime) {
  if (regime == 2) return vector_kernel_limit(precision, arch);
  return 1;
}

std::string regime_text(std::string_view engine, std::string_view precision, std::string_view arch, int regime) {
  if (regime == 0) return "batch 1";
  if (!llama_kernels(engine)) return fmt::format("batch above 1 with {}", engine);
  if (!quantized(precision)) return "batch above 1: F16 weights by cuBLAS";
  const int limit = vector_kernel_limit(precision, arch);
  if (regime == 1) return fmt::format("batch 2–{}: quantized weights by the vector kernel (MMVQ), F16 by cuBLAS", limit);
  return fmt::format("batch above {}: quantized weights by the matrix kernel (MMQ), F16 by cuBLAS", limit);
}

}  // namespace ecocompute::decide
