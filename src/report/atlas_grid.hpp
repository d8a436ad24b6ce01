// AtlasGrid: one format's ΔE vs F16 over model size × batch for one GPU and engine, each cell with its
// 95 % interval and the basis of its figure; as a console table, JSON and an SVG heatmap.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "util/json.hpp"

namespace ecocompute::report {

/// One size × batch cell. The figure is absent where nothing supports one (basis "unavailable").
struct AtlasCell {
  double params_b = 0.0;
  int batch = 1;
  std::optional<double> delta_pct;    ///< ΔE % vs F16 at the same batch; negative saves energy
  std::optional<double> ci_low_pct;   ///< 95 % interval
  std::optional<double> ci_high_pct;
  std::string basis;                  ///< measured, interpolated, extrapolated, borrowed, modelled, unavailable
  int sessions = 0;                   ///< measured cells: the sessions behind the figure
};

/// Rows are sizes (ascending), columns batches (ascending); `cells` holds rows × columns, row-major.
struct AtlasGrid {
  std::string gpu;
  std::string engine;
  std::string precision;
  std::string scope;                  ///< one line: weights, engine version, what a cell is
  std::vector<double> sizes_b;
  std::vector<std::string> size_labels;  ///< the model each row names ("Llama-3-8B"), same order; may be empty
  std::vector<int> batches;
  std::vector<AtlasCell> cells;

  /// Returns the cell of row `size` and column `batch`, or nullptr when the grid has none there.
  [[nodiscard]] const AtlasCell* at(std::size_t size, std::size_t batch) const;
  /// Returns the number of cells whose basis is `basis`.
  [[nodiscard]] std::size_t count(std::string_view basis) const;
};

/// The console table: one row per size, one column per batch, each cell "−32.0 [−35.8, −28.3] M" with
/// the basis as a letter (M measured, I interpolated, X extrapolated, B borrowed, D modelled, — none),
/// then a legend and the count of measured cells.
[[nodiscard]] std::string atlas_text(const AtlasGrid& grid);

/// {gpu, engine, precision, scope, sizes_b, batches, cells: [{params_b, batch, delta_pct, ci: [lo, hi],
/// basis, sessions}], measured, missing}.
[[nodiscard]] OrderedJson atlas_json(const AtlasGrid& grid);

/// A heatmap (sizes down, batches across): colour = ΔE on a diverging scale clipped at ±60 % (blue
/// saves, red costs), the figure and its interval written in each cell, every cell whose figure is not
/// measured hatched and its basis named, a cell with no figure grey.
[[nodiscard]] std::string atlas_svg(const AtlasGrid& grid);

}  // namespace ecocompute::report
