// Crossover chart: measured points (filled for n ≥ 2, hollow for n = 1), the fitted curve and its 95 %
// confidence band, written as SVG and PNG by gnuplot (Debian package `gnuplot`).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "data/curve_set.hpp"
#include "util/result.hpp"

namespace ecocompute::data {

struct PlotOptions {
  std::filesystem::path output;  ///< "chart.svg" or "chart.png"; the extension picks the terminal
  std::string title;             ///< default: "<arch> <engine> <precision>: ΔE vs model size"
  std::string gnuplot = "gnuplot";
  int width_px = 900, height_px = 560;
};

/// Returns the gnuplot script (data inline) for the curves; exposed for tests.
std::string crossover_plot_script(const std::vector<Curve>& curves, const PlotOptions& options);

/// Writes the chart by running gnuplot; unavailable if gnuplot cannot be run, io if it fails.
Result<void> write_crossover_plot(const std::vector<Curve>& curves, const PlotOptions& options);

}  // namespace ecocompute::data
