// Engine names as the dataset spells them, whatever case a question uses ("LLAMA.CPP" → "llama.cpp").
#pragma once

#include <string>
#include <string_view>

namespace ecocompute::data {

/// Returns the dataset's spelling of a known engine name given in any case ("llama.cpp",
/// "transformers+bitsandbytes", "transformers", "llama-server", "openai-endpoint", "vllm", "sglang",
/// "tensorrt-llm"), or `name` unchanged when it is none of them.
[[nodiscard]] std::string canonical_engine_name(std::string_view name);

}  // namespace ecocompute::data
