// llama.cpp backend initialisation and build description.
#include "engine/llama_backend.hpp"

#include <ggml.h>
#include <llama.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

#include "ecocompute/build_info.hpp"

namespace ecocompute::engine {
namespace {
std::mutex last_error_mutex;
std::string last_error;              // guarded by last_error_mutex
ggml_log_level last_level = GGML_LOG_LEVEL_NONE;  // guarded by last_error_mutex: for CONT lines

// Keeps the error lines logged since the last take_last_llama_error(), up to a few KB: the first
// line usually names the cause ("missing tensor 'output_norm.weight'"), the last only the failure.
void remember_error(ggml_log_level level, const char* text) {
  constexpr std::size_t kMaxBytes = 2048;
  std::lock_guard lock(last_error_mutex);
  const bool continues = level == GGML_LOG_LEVEL_CONT && last_level == GGML_LOG_LEVEL_ERROR;
  if ((level == GGML_LOG_LEVEL_ERROR || continues) && last_error.size() < kMaxBytes) {
    std::string line = text;
    while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
    if (!line.empty()) {
      if (!last_error.empty()) last_error += continues ? " " : "; ";
      last_error += line;
    }
  }
  if (level != GGML_LOG_LEVEL_CONT) last_level = level;
}

// llama.cpp logs every tensor at load; keep stderr for our own progress unless asked.
void quiet_log(ggml_log_level level, const char* text, void* /*user*/) {
  remember_error(level, text);
  if (level == GGML_LOG_LEVEL_ERROR) std::fputs(text, stderr);
}

void verbose_log(ggml_log_level level, const char* text, void* /*user*/) {
  remember_error(level, text);
  std::fputs(text, stderr);
}
}  // namespace

void ensure_llama_backend() {
  static std::once_flag once;
  std::call_once(once, [] {
    const char* verbose = std::getenv("ECOCOMPUTE_LLAMA_LOG");
    const bool quiet = verbose == nullptr || std::strcmp(verbose, "1") != 0;
    llama_log_set(quiet ? quiet_log : verbose_log, nullptr);
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

std::string take_last_llama_error() {
  std::lock_guard lock(last_error_mutex);
  std::string text = std::move(last_error);
  last_error.clear();
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

}  // namespace ecocompute::engine
