// llama.cpp backend initialisation and build description.
#include "engine/llama_backend.hpp"

#include <ggml.h>
#include <llama.h>

#include <cstdlib>
#include <cstring>
#include <mutex>

#include "ecocompute/build_info.hpp"

namespace ecocompute::engine {
namespace {
// llama.cpp logs every tensor at load; keep stderr for our own progress unless asked.
void quiet_log(ggml_log_level level, const char* text, void* /*user*/) {
  if (level == GGML_LOG_LEVEL_ERROR) std::fputs(text, stderr);
}
}  // namespace

void ensure_llama_backend() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* verbose = std::getenv("ECOCOMPUTE_LLAMA_LOG");
    if (verbose == nullptr || std::strcmp(verbose, "1") != 0) llama_log_set(quiet_log, nullptr);
    llama_backend_init();
  });
}

LlamaBuildInfo llama_build_info() {
  ensure_llama_backend();
  LlamaBuildInfo info;
  info.version = "v0.4.0";  // the tag node-llama-cpp@3.21.1 records for the pinned commit
  info.commit = build_info::llama_commit;
  info.ggml_version = ggml_version();
  info.ggml_commit = ggml_commit();
  info.system_info = llama_print_system_info();
  info.gpu_offload = llama_supports_gpu_offload();
  return info;
}

}  // namespace ecocompute::engine
