// Owning handles for gguf.h and ggml.h contexts, so every early return frees them.
#pragma once

#include <ggml.h>
#include <gguf.h>

#include <memory>

namespace ecocompute::engine {

struct GgufDeleter {
  void operator()(gguf_context* ctx) const noexcept { gguf_free(ctx); }
};
/// A gguf_context freed with gguf_free.
using GgufPtr = std::unique_ptr<gguf_context, GgufDeleter>;

struct GgmlDeleter {
  void operator()(ggml_context* ctx) const noexcept { ggml_free(ctx); }
};
/// A ggml_context freed with ggml_free.
using GgmlPtr = std::unique_ptr<ggml_context, GgmlDeleter>;

}  // namespace ecocompute::engine
