// The CUDA burner behind LoadGenerator: every SM runs chains of fused multiply-adds until a time
// budget is spent.
#include "meter/load_generator_cuda.hpp"

#include <cuda_runtime.h>

#include <cstdio>

namespace ecocompute::meter::detail {
namespace {

// Each thread runs four independent FMA chains and checks the GPU's nanosecond timer every 256
// iterations, so a launch lasts `duration_ns` ± a few microseconds whatever the clock speed.
__global__ void burn(float* sink, unsigned long long duration_ns) {
  unsigned long long start = 0;
  unsigned long long now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  float a = 1.0f + threadIdx.x * 1e-6f, b = 0.5f, c = 0.25f, d = 0.125f;
  const float m = 0.999999f, k = 1e-7f;
  do {
#pragma unroll 16
    for (int i = 0; i < 256; ++i) {
      a = fmaf(a, m, k);
      b = fmaf(b, m, k);
      c = fmaf(c, m, k);
      d = fmaf(d, m, k);
    }
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < duration_ns);
  if (a + b + c + d == -1.0f) sink[threadIdx.x] = a;  // never true; keeps the chains alive
}

std::string uuid_text(const cudaUUID_t& uuid) {
  std::string out = "GPU-";
  for (int i = 0; i < 16; ++i) {
    char byte[3];
    std::snprintf(byte, sizeof byte, "%02x", static_cast<unsigned char>(uuid.bytes[i]));
    out += byte;
    if (i == 3 || i == 5 || i == 7 || i == 9) out += '-';
  }
  return out;
}

std::string failure(const char* call, cudaError_t rc) {
  return std::string(call) + " failed: " + cudaGetErrorName(rc) + ": " + cudaGetErrorString(rc);
}

}  // namespace

struct CudaBurner {
  int device = 0;
  int sms = 1;
  float* sink = nullptr;
};

std::string cuda_burner_open(const std::string& gpu_uuid, CudaBurner** burner) {
  int count = 0;
  if (cudaError_t rc = cudaGetDeviceCount(&count); rc != cudaSuccess) return failure("cudaGetDeviceCount", rc);
  for (int device = 0; device < count; ++device) {
    cudaDeviceProp props{};
    if (cudaGetDeviceProperties(&props, device) != cudaSuccess) continue;
    if (uuid_text(props.uuid) != gpu_uuid) continue;
    if (cudaError_t rc = cudaSetDevice(device); rc != cudaSuccess) return failure("cudaSetDevice", rc);
    auto* b = new CudaBurner{device, props.multiProcessorCount, nullptr};
    // cudaMalloc creates the context: from here on the GPU has a context open.
    if (cudaError_t rc = cudaMalloc(&b->sink, 1024 * sizeof(float)); rc != cudaSuccess) {
      delete b;
      return failure("cudaMalloc", rc);
    }
    *burner = b;
    return {};
  }
  return "no visible CUDA device has UUID " + gpu_uuid + " (check CUDA_VISIBLE_DEVICES)";
}

std::string cuda_burner_run(CudaBurner* burner, double seconds) {
  // Launches of at most 50 ms, back to back: the host notices the end within one launch.
  constexpr double chunk_s = 0.05;
  double left = seconds;
  while (left > 0.0) {
    const double this_s = left < chunk_s ? left : chunk_s;
    burn<<<burner->sms * 4, 256>>>(burner->sink, static_cast<unsigned long long>(this_s * 1e9));
    if (cudaError_t rc = cudaGetLastError(); rc != cudaSuccess) return failure("burn<<<>>>", rc);
    if (cudaError_t rc = cudaDeviceSynchronize(); rc != cudaSuccess) return failure("cudaDeviceSynchronize", rc);
    left -= this_s;
  }
  return {};
}

void cuda_burner_close(CudaBurner* burner) noexcept {
  if (burner == nullptr) return;
  cudaFree(burner->sink);
  delete burner;
}

}  // namespace ecocompute::meter::detail
