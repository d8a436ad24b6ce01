// AtlasGrid as an SVG heatmap: one rectangle per size × batch, coloured by ΔE, its figure and interval
// written in it, hatched where the figure is not measured.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "report/atlas_grid.hpp"

namespace ecocompute::report {
namespace {

constexpr double kClipPct = 60.0;   // the colour scale's ends: ±60 % and beyond look the same
constexpr int kCellW = 140;
constexpr int kCellH = 46;
constexpr int kLeft = 150;          // room for the size labels
constexpr int kTop = 74;            // title, scope and the batch header
constexpr int kLegendH = 58;

std::string escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// Diverging scale: blue (saves) through white (0) to red (costs).
std::string colour(double delta_pct) {
  const double t = std::clamp(delta_pct / kClipPct, -1.0, 1.0);
  const auto mix = [](int from, int to, double w) { return static_cast<int>(std::lround(from + (to - from) * w)); };
  if (t < 0) return fmt::format("#{:02x}{:02x}{:02x}", mix(255, 33, -t), mix(255, 102, -t), mix(255, 172, -t));
  return fmt::format("#{:02x}{:02x}{:02x}", mix(255, 178, t), mix(255, 24, t), mix(255, 43, t));
}

std::string cell_svg(const AtlasCell& cell, int x, int y) {
  if (!cell.delta_pct) {
    return fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#d9d9d9\" stroke=\"#fff\"/>"
                       "<text x=\"{}\" y=\"{}\" class=\"c\">no figure</text>\n",
                       x, y, kCellW, kCellH, x + kCellW / 2, y + kCellH / 2 + 4);
  }
  std::string out = fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\" stroke=\"#fff\"/>", x, y,
                                kCellW, kCellH, colour(*cell.delta_pct));
  const bool measured = cell.basis == "measured";
  if (!measured) {
    out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"url(#hatch)\"/>", x, y, kCellW, kCellH);
  }
  const std::string interval = cell.ci_low_pct && cell.ci_high_pct
                                   ? fmt::format("[{:+.1f}, {:+.1f}]", *cell.ci_low_pct, *cell.ci_high_pct)
                                   : std::string("no interval");
  out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"v\">{:+.1f} %</text>", x + kCellW / 2, y + 18, *cell.delta_pct);
  out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"c\">{}{}</text>\n", x + kCellW / 2, y + 34, interval,
                     measured ? "" : " " + escape(cell.basis));
  return out;
}

std::string legend(int y, int width) {
  std::string out = fmt::format("<g transform=\"translate({},{})\">", kLeft, y);
  for (int i = 0; i <= 12; ++i) {
    const double value = -kClipPct + i * (2 * kClipPct / 12);
    out += fmt::format("<rect x=\"{}\" y=\"0\" width=\"24\" height=\"12\" fill=\"{}\"/>", i * 24, colour(value));
  }
  out += fmt::format("<text x=\"0\" y=\"26\" class=\"l\">−{0:.0f} % (saves)</text><text x=\"312\" y=\"26\" class=\"l\" "
                     "text-anchor=\"end\">+{0:.0f} % (costs)</text>",
                     kClipPct);
  out += "<rect x=\"340\" y=\"0\" width=\"24\" height=\"12\" fill=\"#fff\" stroke=\"#999\"/>"
         "<rect x=\"340\" y=\"0\" width=\"24\" height=\"12\" fill=\"url(#hatch)\"/>"
         "<text x=\"370\" y=\"10\" class=\"l\">hatched: not measured (basis named in the cell)</text>";
  out += fmt::format("<rect x=\"340\" y=\"18\" width=\"24\" height=\"12\" fill=\"#d9d9d9\"/><text x=\"370\" y=\"28\" "
                     "class=\"l\">grey: nothing to answer from</text></g>\n");
  (void)width;
  return out;
}

}  // namespace

std::string atlas_svg(const AtlasGrid& grid) {
  const int width = kLeft + static_cast<int>(grid.batches.size()) * kCellW + 16;
  const int height = kTop + static_cast<int>(grid.sizes_b.size()) * kCellH + kLegendH;
  std::string out = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\">\n<defs><pattern id=\"hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
      "patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#555\" stroke-width=\"1.2\" "
      "stroke-opacity=\"0.45\"/></pattern><style>.v{{font-size:13px;font-weight:bold;text-anchor:middle}}"
      ".c{{font-size:10px;text-anchor:middle}}.h{{font-size:12px;text-anchor:middle}}.s{{font-size:12px;text-anchor:end}}"
      ".l{{font-size:10px}}</style></defs>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n",
      width, height);
  out += fmt::format("<text x=\"8\" y=\"20\" font-size=\"15\" font-weight=\"bold\">{} on {} with {}: ΔE vs F16 at the "
                     "same batch</text>\n",
                     escape(grid.precision), escape(grid.gpu), escape(grid.engine));
  out += fmt::format("<text x=\"8\" y=\"38\" font-size=\"11\">{}</text>\n", escape(grid.scope));
  for (std::size_t c = 0; c < grid.batches.size(); ++c) {
    out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"h\">batch {}</text>\n",
                       kLeft + static_cast<int>(c) * kCellW + kCellW / 2, kTop - 8, grid.batches[c]);
  }
  for (std::size_t r = 0; r < grid.sizes_b.size(); ++r) {
    const int y = kTop + static_cast<int>(r) * kCellH;
    const std::string name = r < grid.size_labels.size() ? grid.size_labels[r] : "";
    out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"s\">{:.2f} B</text>", kLeft - 8, y + 18, grid.sizes_b[r]);
    if (!name.empty()) out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"s\" font-size=\"10\">{}</text>", kLeft - 8, y + 34, escape(name));
    out += "\n";
    for (std::size_t c = 0; c < grid.batches.size(); ++c) {
      if (const AtlasCell* cell = grid.at(r, c)) out += cell_svg(*cell, kLeft + static_cast<int>(c) * kCellW, y);
    }
  }
  out += legend(kTop + static_cast<int>(grid.sizes_b.size()) * kCellH + 14, width);
  return out + "</svg>\n";
}

}  // namespace ecocompute::report
