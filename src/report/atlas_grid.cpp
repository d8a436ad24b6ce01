// AtlasGrid's cell lookup, console table and JSON.
#include "report/atlas_grid.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace ecocompute::report {
namespace {

std::string basis_letter(std::string_view basis) {
  if (basis == "measured") return "M";
  if (basis == "interpolated") return "I";
  if (basis == "extrapolated") return "X";
  if (basis == "borrowed") return "B";
  if (basis == "modelled") return "D";
  return "-";
}

std::string cell_text(const AtlasCell* cell) {
  if (cell == nullptr || !cell->delta_pct) return "-";
  std::string text = fmt::format("{:+.1f}", *cell->delta_pct);
  if (cell->ci_low_pct && cell->ci_high_pct) text += fmt::format(" [{:+.1f}, {:+.1f}]", *cell->ci_low_pct, *cell->ci_high_pct);
  return text + " " + basis_letter(cell->basis);
}

std::string size_label(const AtlasGrid& grid, std::size_t row) {
  std::string label = fmt::format("{:.2f} B", grid.sizes_b[row]);
  if (row < grid.size_labels.size() && !grid.size_labels[row].empty()) label += " " + grid.size_labels[row];
  return label;
}

// Code points of UTF-8 text: the table's columns are aligned by them, not by bytes.
std::size_t points(const std::string& text) {
  std::size_t n = 0;
  for (unsigned char c : text) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

std::string pad(const std::string& text, std::size_t width) {
  const std::size_t n = points(text);
  return n >= width ? text : text + std::string(width - n, ' ');
}

}  // namespace

const AtlasCell* AtlasGrid::at(std::size_t size, std::size_t batch) const {
  const std::size_t index = size * batches.size() + batch;
  if (size >= sizes_b.size() || batch >= batches.size() || index >= cells.size()) return nullptr;
  return &cells[index];
}

std::size_t AtlasGrid::count(std::string_view basis) const {
  return static_cast<std::size_t>(
      std::count_if(cells.begin(), cells.end(), [&](const AtlasCell& c) { return c.basis == basis; }));
}

std::string atlas_text(const AtlasGrid& grid) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header{"size"};
  for (int batch : grid.batches) header.push_back(fmt::format("batch {}", batch));
  rows.push_back(header);
  for (std::size_t r = 0; r < grid.sizes_b.size(); ++r) {
    std::vector<std::string> row{size_label(grid, r)};
    for (std::size_t c = 0; c < grid.batches.size(); ++c) row.push_back(cell_text(grid.at(r, c)));
    rows.push_back(std::move(row));
  }
  std::vector<std::size_t> widths(header.size(), 0);
  for (const auto& row : rows) {
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], points(row[c]));
  }
  std::string out = fmt::format("{} on {} with {}: ΔE % vs F16 at the same batch [95 % interval] basis\n", grid.precision,
                                grid.gpu, grid.engine);
  if (!grid.scope.empty()) out += grid.scope + "\n";
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t c = 0; c < row.size(); ++c) line += pad(row[c], widths[c] + 2);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  out += fmt::format("M measured, I interpolated, X extrapolated, B borrowed, D modelled, - nothing to answer from. "
                     "{} of {} cells measured.\n",
                     grid.count("measured"), grid.cells.size());
  return out;
}

OrderedJson atlas_json(const AtlasGrid& grid) {
  OrderedJson cells = OrderedJson::array();
  for (const AtlasCell& c : grid.cells) {
    OrderedJson cell{{"params_b", c.params_b}, {"batch", c.batch}, {"delta_pct", nullptr}, {"ci", nullptr},
                     {"basis", c.basis}, {"sessions", c.sessions}};
    if (c.delta_pct) cell["delta_pct"] = *c.delta_pct;
    if (c.ci_low_pct && c.ci_high_pct) cell["ci"] = OrderedJson::array({*c.ci_low_pct, *c.ci_high_pct});
    cells.push_back(std::move(cell));
  }
  return OrderedJson{{"gpu", grid.gpu},
                     {"engine", grid.engine},
                     {"precision", grid.precision},
                     {"scope", grid.scope},
                     {"sizes_b", grid.sizes_b},
                     {"size_labels", grid.size_labels},
                     {"batches", grid.batches},
                     {"cells", std::move(cells)},
                     {"measured", grid.count("measured")},
                     {"missing", grid.cells.size() - grid.count("measured")}};
}

}  // namespace ecocompute::report
