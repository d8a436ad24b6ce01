#include "engine/split_mode.hpp"

#include <string>

namespace ecocompute::engine {

std::string_view to_string(SplitMode mode) noexcept { return mode == SplitMode::row ? "row" : "layer"; }

Result<SplitMode> parse_split_mode(std::string_view text) {
  if (text == "layer") return SplitMode::layer;
  if (text == "row") return SplitMode::row;
  return unexpected(ErrorCode::invalid_argument, "split mode '" + std::string(text) + "' is not 'layer' or 'row'");
}

}  // namespace ecocompute::engine
