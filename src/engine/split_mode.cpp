#include "engine/split_mode.hpp"

#include <string>

namespace ecocompute::engine {

std::string_view to_string(SplitMode mode) noexcept {
  switch (mode) {
    case SplitMode::row: return "row";
    case SplitMode::tensor: return "tensor";
    case SplitMode::layer: break;
  }
  return "layer";
}

Result<SplitMode> parse_split_mode(std::string_view text) {
  if (text == "layer") return SplitMode::layer;
  if (text == "row") return SplitMode::row;
  if (text == "tensor") return SplitMode::tensor;
  return unexpected(ErrorCode::invalid_argument, "split mode '" + std::string(text) + "' is not 'layer', 'row' or 'tensor'");
}

}  // namespace ecocompute::engine
