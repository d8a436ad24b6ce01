// Process-wide llama.cpp backend: initialisation once, and what build of llama.cpp this is.
#pragma once

#include <string>

namespace ecocompute::engine {

/// Which llama.cpp this binary runs, for every report's engine dimension.
struct LlamaBuildInfo {
  std::string engine = "llama.cpp";
  std::string version;        ///< release tag of the pinned source (v0.4.0)
  std::string commit;         ///< pinned commit (+ patch) from build_llama.sh's stamp
  std::string ggml_version;   ///< ggml_version()
  std::string ggml_commit;    ///< ggml_commit()
  std::string system_info;    ///< llama_print_system_info(): CPU features and backends compiled in
  bool gpu_offload = false;   ///< llama_supports_gpu_offload(): a GPU backend (CUDA) is present
};

/// Initialises the llama.cpp backend once per process (thread-safe) and silences its logging
/// unless ECOCOMPUTE_LLAMA_LOG=1.
void ensure_llama_backend();

/// Returns what build of llama.cpp is linked; initialises the backend first.
LlamaBuildInfo llama_build_info();

/// Returns the error lines llama.cpp and ggml logged since the last call, joined by "; ", and forgets
/// them, so a failure can name llama.cpp's own reason; "" when none was logged.
/// Thread-safe.
std::string take_last_llama_error();

}  // namespace ecocompute::engine
