// Weights and KV cache against the GPU's memory (see memory_fit.hpp).
#include "decide/memory_fit.hpp"

#include <fmt/format.h>

#include <cmath>

namespace ecocompute::decide {

double kv_cache_gb(double params_b, int context, int batch) noexcept {
  return kKvBytesPerTokenPerBillion * params_b * static_cast<double>(context) * static_cast<double>(batch) / 1e9;
}

MemoryFit memory_fit(const std::string& gpu, double gpu_memory_gb, const ModelParams& params, const PrecisionInfo& precision,
                     int batch, int context, BasisDetail detail) {
  MemoryFit m;
  m.gpu = gpu;
  m.gpu_memory_gb = gpu_memory_gb;
  m.weights_gb = weight_gb(params.total_b, precision);
  m.kv_cache_gb = kv_cache_gb(params.active_b > 0 ? params.active_b : params.total_b, context, batch);
  m.total_gb = m.weights_gb + m.kv_cache_gb;
  m.fp16_total_gb = params.total_b * 2.0 + m.kv_cache_gb;
  m.fits = gpu_memory_gb <= 0 || m.total_gb <= gpu_memory_gb;
  m.fp16_fits = gpu_memory_gb <= 0 || m.fp16_total_gb <= gpu_memory_gb;
  if (detail == BasisDetail::kind_only) {
    m.basis.basis = data::Basis::modelled;
    return m;
  }
  m.basis = data::modelled_basis(fmt::format("weights ({:g} bits per weight) + KV cache ({:g} KiB per token of context per billion "
                                             "parameters); runtime buffers not included",
                                             precision.bits_per_weight, kKvBytesPerTokenPerBillion / 1024));
  return m;
}

int largest_fitting_batch(const MemoryFit& m, int batch) {
  if (m.gpu_memory_gb <= 0 || m.kv_cache_gb <= 0 || batch < 1) return batch;
  const double free_gb = m.gpu_memory_gb - m.weights_gb;
  if (free_gb <= 0) return 0;
  return static_cast<int>(std::floor(free_gb / (m.kv_cache_gb / batch)));
}

std::string memory_note(const MemoryFit& m, const std::string& precision) {
  std::string out;
  if (!m.fits) {
    out = fmt::format("{} needs {:.1f} GB (weights {:.1f} + KV cache {:.1f}) and the {} has {:g} GB: it does not fit on one GPU",
                      precision, m.total_gb, m.weights_gb, m.kv_cache_gb, m.gpu, m.gpu_memory_gb);
  }
  if (!m.fp16_fits) {
    out += fmt::format("{}F16 needs {:.1f} GB and the {} has {:g} GB: it does not fit on one GPU, so ΔE is against an F16 that "
                       "cannot run here (it would need {} GPUs; our measurements are of one)",
                       out.empty() ? "" : "; ", m.fp16_total_gb, m.gpu, m.gpu_memory_gb,
                       static_cast<int>(m.fp16_total_gb / m.gpu_memory_gb) + 1);
  }
  return out;
}

void write_json(JsonSink& sink, const MemoryFit& m) {
  sink.begin_object();
  sink.key("basis");
  data::write_json(sink, m.basis);
  sink.field("fits", m.fits);
  sink.field("fp16_fits", m.fp16_fits);
  sink.field("fp16_total_gb", m.fp16_total_gb);
  sink.field("gpu", m.gpu);
  sink.field("gpu_memory_gb", m.gpu_memory_gb);
  sink.field("kv_cache_gb", m.kv_cache_gb);
  sink.field("total_gb", m.total_gb);
  sink.field("weights_gb", m.weights_gb);
  sink.end_object();
}

void to_json(Json& j, const MemoryFit& m) { to_document(j, m); }

}  // namespace ecocompute::decide
