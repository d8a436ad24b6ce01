// Known engine names.
#include "data/engine_name.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "util/precision.hpp"

namespace ecocompute::data {

std::string canonical_engine_name(std::string_view name) {
  static constexpr std::array<std::string_view, 8> kKnown{"llama.cpp",   "transformers+bitsandbytes", "transformers", "llama-server",
                                                          "openai-endpoint", "vllm", "sglang", "tensorrt-llm"};
  const auto same = [&](std::string_view known) {
    return known.size() == name.size() && std::equal(known.begin(), known.end(), name.begin(), [](char a, char b) {
             return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
           });
  };
  for (std::string_view known : kKnown) {
    if (same(known)) return std::string(known);
  }
  if (same(published_engine)) return std::string(published_engine);
  return std::string(name);
}

}  // namespace ecocompute::data
