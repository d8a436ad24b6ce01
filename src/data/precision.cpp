// Precision table and model-size parsing.
#include "data/precision.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <regex>
#include <vector>

#include "data/data_row.hpp"

namespace ecocompute::data {
namespace {

std::string upper(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::toupper(c); });
  return out;
}

// Average bits per weight: bitsandbytes NF4 stores 4 bits plus one FP32 absmax per 64 weights
// (4 + 32/64 = 4.5); LLM.int8() 8 bits plus a per-row FP16 scale (≈ 8). GGUF figures are llama.cpp's
// block layouts (e.g. Q4_0: 18 bytes per 32 weights = 4.5 bits; Q8_0: 34 bytes per 32 = 8.5 bits;
// the K-quant mixes are llama.cpp's reported sizes for 7B models).
const std::vector<PrecisionInfo>& table() {
  static const std::vector<PrecisionInfo> precisions{
      {"FP16", 16.0, true, false, kDefaultPublishedEngine},
      {"BF16", 16.0, true, false, kDefaultPublishedEngine},
      {"NF4", 4.5, false, false, kDefaultPublishedEngine},
      {"FP4", 4.5, false, false, kDefaultPublishedEngine},
      {"INT8", 8.0, false, false, kDefaultPublishedEngine},
      {"F16", 16.0, true, true, "llama.cpp"},
      {"F32", 32.0, true, true, "llama.cpp"},
      {"Q8_0", 8.5, false, true, "llama.cpp"},
      {"Q6_K", 6.5625, false, true, "llama.cpp"},
      {"Q5_K_M", 5.67, false, true, "llama.cpp"},
      {"Q5_K_S", 5.52, false, true, "llama.cpp"},
      {"Q5_0", 5.5, false, true, "llama.cpp"},
      {"Q4_K_M", 4.83, false, true, "llama.cpp"},
      {"Q4_K_S", 4.57, false, true, "llama.cpp"},
      {"Q4_0", 4.5, false, true, "llama.cpp"},
      {"Q4_1", 5.0, false, true, "llama.cpp"},
      {"IQ4_XS", 4.25, false, true, "llama.cpp"},
      {"Q3_K_M", 3.89, false, true, "llama.cpp"},
      {"Q2_K", 2.96, false, true, "llama.cpp"},
  };
  return precisions;
}

}  // namespace

Result<PrecisionInfo> parse_precision(std::string_view text) {
  std::string key = upper(text);
  if (key == "FLOAT16" || key == "HALF") key = "FP16";
  if (key == "BFLOAT16") key = "BF16";
  if (key == "LLM.INT8" || key == "LLM.INT8()" || key == "8BIT") key = "INT8";
  if (key == "4BIT") key = "NF4";
  for (const PrecisionInfo& p : table()) {
    if (p.name == key) return p;
  }
  std::string known;
  for (const PrecisionInfo& p : table()) known += (known.empty() ? "" : ", ") + p.name;
  return unexpected(ErrorCode::invalid_argument,
                    "unknown precision '" + std::string(text) + "' (known: " + known + ")");
}

double weight_gb(double params_b, const PrecisionInfo& precision) noexcept {
  return params_b * precision.bits_per_weight / 8.0;  // 1e9 params × bits / 8 bits per byte / 1e9
}

std::optional<double> params_b_from_model_name(std::string_view model_name) {
  const std::string name(model_name);
  // "8x7B" (mixture of experts): total parameters = experts × size.
  static const std::regex moe(R"((\d+)\s*[xX]\s*(\d+(?:\.\d+)?)\s*[bB](?![a-zA-Z]))");
  std::smatch m;
  if (std::regex_search(name, m, moe)) return std::stod(m[1].str()) * std::stod(m[2].str());
  // The last number directly followed by B (billions) or M (millions), not part of a longer word
  // ("14B", "1.1B-Chat", "500M"); a version like "Qwen2.5" has no B after it.
  static const std::regex size(R"((?:^|[^0-9.])(\d+(?:\.\d+)?)\s*([bBmM])(?![a-zA-Z]))");
  std::optional<double> found;
  for (auto it = std::sregex_iterator(name.begin(), name.end(), size); it != std::sregex_iterator(); ++it) {
    const double value = std::stod((*it)[1].str());
    const bool millions = (*it)[2].str() == "m" || (*it)[2].str() == "M";
    found = millions ? value / 1000.0 : value;
  }
  return found;
}

Result<double> check_params_b(double params_b, std::string_view what) {
  if (!std::isfinite(params_b) || params_b <= 0) {
    return unexpected(ErrorCode::invalid_argument,
                      std::string(what) + " must be a finite number of billions of parameters > 0, got " +
                          std::to_string(params_b));
  }
  return params_b;
}

}  // namespace ecocompute::data
