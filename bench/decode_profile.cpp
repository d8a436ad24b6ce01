// Decode steps for a kernel profiler: loads a GGUF with LlamaEngine (every layer on the GPU, the greedy
// choice on the device, as `measure` runs it), warms up at the batch asked for, then decodes the
// profiled steps between cudaProfilerStart and cudaProfilerStop. Under Nsight Compute started with
// `--profile-from-start off` only those steps' kernels are profiled, none of the loading or warm-up.
//
//   decode_profile MODEL.gguf BATCH [PROFILED_STEPS=1] [WARMUP_STEPS=32]
//
// Exit 0 when the steps ran, 2 on bad arguments, 3 when the model does not load or decode fails.
// cudaProfilerStart is looked up at run time in the CUDA runtime llama.cpp's CUDA backend loaded; a
// CPU build has none, and the steps then run unprofiled (said on stderr).
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/llama_engine.hpp"

namespace {

using ProfilerCall = int (*)();

ProfilerCall cuda_symbol(const char* name) {
  if (void* found = dlsym(RTLD_DEFAULT, name)) return reinterpret_cast<ProfilerCall>(found);
  for (const char* library : {"libcudart.so.13", "libcudart.so.12", "libcudart.so"}) {
    if (void* handle = dlopen(library, RTLD_NOW | RTLD_NOLOAD)) {
      if (void* found = dlsym(handle, name)) return reinterpret_cast<ProfilerCall>(found);
    }
  }
  return nullptr;
}

long positive(const char* text, long fallback) {
  if (text == nullptr) return fallback;
  char* end = nullptr;
  const long value = std::strtol(text, &end, 10);
  return end != text && *end == '\0' && value > 0 ? value : -1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ecocompute;
  const long batch = argc > 2 ? positive(argv[2], 1) : -1;
  const long steps = positive(argc > 3 ? argv[3] : nullptr, 1);
  const long warmup = positive(argc > 4 ? argv[4] : nullptr, 32);
  if (argc < 3 || argc > 5 || batch < 1 || batch > 512 || steps < 1 || warmup < 1) {
    std::fprintf(stderr, "usage: decode_profile MODEL.gguf BATCH(1-512) [PROFILED_STEPS] [WARMUP_STEPS]\n");
    return 2;
  }
  engine::LoadOptions options;
  options.model = argv[1];
  options.n_ctx = static_cast<std::uint32_t>(64 + warmup + steps);
  options.n_sequences = static_cast<std::uint32_t>(batch);
  auto engine = engine::LlamaEngine::open(options);
  if (!engine) {
    std::fprintf(stderr, "decode_profile: %s\n", engine.error().describe().c_str());
    return 3;
  }
  std::vector<engine::Token> prompt(16, 1000);
  if ((*engine)->bos() >= 0) prompt.front() = (*engine)->bos();
  auto fail = [](const Error& error) {
    std::fprintf(stderr, "decode_profile: %s\n", error.describe().c_str());
    return 3;
  };
  if (auto filled = (*engine)->prefill_sequences(prompt, static_cast<int>(batch)); !filled) return fail(filled.error());
  if (auto warm = (*engine)->decode(warmup); !warm) return fail(warm.error());
  const ProfilerCall start = cuda_symbol("cudaProfilerStart");
  const ProfilerCall stop = cuda_symbol("cudaProfilerStop");
  if (start == nullptr || stop == nullptr) std::fprintf(stderr, "decode_profile: no CUDA runtime: steps unprofiled\n");
  (*engine)->synchronize();
  if (start != nullptr) start();
  auto profiled = (*engine)->decode(steps);
  (*engine)->synchronize();
  if (stop != nullptr) stop();
  if (!profiled) return fail(profiled.error());
  const engine::EngineDescription d = (*engine)->describe();
  std::printf("%s batch %ld: %ld profiled steps after %ld warm-up steps on %s, token choice %s, %.3f ms per step\n",
              (*engine)->model().gguf_type.c_str(), batch, steps, warmup, d.device.c_str(), d.token_choice.c_str(),
              profiled->elapsed.value * 1e3 / static_cast<double>(steps));
  return 0;
}
