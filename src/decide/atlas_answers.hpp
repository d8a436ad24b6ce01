// The batch atlas from the decision model: one format's ΔE vs F16 over model size × batch for a GPU and
// engine, each cell predict()'s answer with its 95 % predictive interval and basis (what `ecocompute atlas`
// prints and GET /v1/atlas returns).
#pragma once

#include <string>
#include <vector>

#include "decide/evidence.hpp"
#include "report/atlas_grid.hpp"
#include "util/result.hpp"

namespace ecocompute::decide {

/// A row of the atlas: a model size and the model it names ("Llama-3-8B").
struct AtlasSize {
  double params_b = 0.0;
  std::string label;
};

struct AtlasQuery {
  std::string gpu = "H200";
  std::string engine = "llama.cpp";
  std::string precision = "Q4_K_M";
  std::vector<int> batches{1, 2, 4, 8, 16, 32, 64};
  std::vector<AtlasSize> sizes;
};

/// The batch levels of a comma list ("1,2,4"): whole numbers from 1 to 512, at most 16, no repeats.
/// Error (invalid_argument) naming `what` and the item.
[[nodiscard]] Result<std::vector<int>> parse_atlas_batches(const std::string& text, const std::string& what);

/// Every cell predict()'s answer, asked as estimate asks it; a cell with nothing to answer from has basis "unavailable" and no figure.
[[nodiscard]] report::AtlasGrid atlas_grid(const Evidence& evidence, const AtlasQuery& query);

}  // namespace ecocompute::decide
