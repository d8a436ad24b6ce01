// The campaign's shapes, sized by the model generator that writes them.
#include "cli/atlas_sizes.hpp"

#include <array>
#include <string_view>

#include "modelgen/synthetic_model.hpp"

namespace ecocompute::cli {

Result<std::vector<decide::AtlasSize>> campaign_atlas_sizes() {
  static constexpr std::array<std::string_view, 7> shapes{"qwen2-0.5b", "llama3-1b", "qwen2-1.5b", "llama3-3b",
                                                          "qwen2-7b",   "llama3-8b", "qwen2.5-14b"};
  std::vector<decide::AtlasSize> sizes;
  for (std::string_view id : shapes) {
    auto shape = modelgen::find_shape(id);
    if (!shape) return shape.error();
    sizes.push_back({static_cast<double>(modelgen::parameter_count(*shape)) / 1e9, shape->display_name});
  }
  return sizes;
}

}  // namespace ecocompute::cli
