// Model-size parsing and checking.
#include "data/model_size.hpp"

#include <cmath>
#include <regex>
#include <string>

#include <fmt/format.h>

namespace ecocompute::data {

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
  if (!std::isfinite(params_b) || params_b < kMinParamsB || params_b > kMaxParamsB) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("{} must be a model size between {:g} and {:g} billion parameters (1 million to "
                                  "10 trillion), got {:g}",
                                  what, kMinParamsB, kMaxParamsB, params_b));
  }
  return params_b;
}

}  // namespace ecocompute::data
