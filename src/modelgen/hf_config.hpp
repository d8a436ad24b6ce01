// The Hugging Face config.json of a synthetic shape: transformers builds the same model from it (with
// its own random weights), so another engine can be measured on exactly the shape llama.cpp runs.
#pragma once

#include "modelgen/synthetic_model.hpp"
#include "util/json.hpp"

namespace ecocompute::modelgen {

/// Returns the config.json of `shape` (LlamaForCausalLM or Qwen2ForCausalLM, float16): layer count,
/// widths, heads, vocabulary, context, rope base, norm epsilon and tied embeddings as in the GGUF.
[[nodiscard]] OrderedJson hf_config(const ModelShape& shape);

}  // namespace ecocompute::modelgen
