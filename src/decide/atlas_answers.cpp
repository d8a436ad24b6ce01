// The atlas's cells: one predict() per size and batch, the question resolved as estimate resolves it.
#include "decide/atlas_answers.hpp"

#include <algorithm>

#include "decide/estimate.hpp"
#include "decide/prediction.hpp"
#include "util/number_list.hpp"

namespace ecocompute::decide {
namespace {

report::AtlasCell answer_cell(const Evidence& evidence, const AtlasQuery& query, double params_b, int batch) {
  report::AtlasCell cell{params_b, batch, std::nullopt, std::nullopt, std::nullopt, "unavailable", 0};
  EstimateRequest request;
  request.gpu = query.gpu;
  request.engine = query.engine;
  request.precision = query.precision;
  request.params_b = params_b;
  request.batch = batch;
  auto question = resolve_estimate_request(request);
  if (!question) return cell;
  auto answer = predict(evidence, *question);
  if (!answer || !answer->delta) return cell;  // nothing to answer from: a grey cell
  const Figure& delta = *answer->delta;
  cell.delta_pct = delta.value;
  cell.ci_low_pct = delta.low;
  cell.ci_high_pct = delta.high;
  cell.basis = std::string(data::to_string(delta.basis.basis));
  if (delta.basis.basis == data::Basis::measured) cell.sessions = static_cast<int>(delta.basis.session_count);
  return cell;
}

}  // namespace

Result<std::vector<int>> parse_atlas_batches(const std::string& text, const std::string& what) {
  auto parsed = parse_number_list(text, {.what = what, .noun = "batch", .max = 512, .unique = true, .max_items = 16});
  if (!parsed) return parsed.error();
  std::vector<int> batches(parsed->begin(), parsed->end());
  std::sort(batches.begin(), batches.end());
  return batches;
}

report::AtlasGrid atlas_grid(const Evidence& evidence, const AtlasQuery& query) {
  report::AtlasGrid grid;
  grid.gpu = query.gpu;
  grid.engine = query.engine;
  grid.precision = query.precision;
  grid.scope = "each cell the decision model's answer (decide::predict) with its 95 % predictive interval for a "
               "new card; the H200 cells are synthetic weights, gross GPU energy, short context";
  grid.batches = query.batches;
  for (const AtlasSize& size : query.sizes) {
    grid.sizes_b.push_back(size.params_b);
    grid.size_labels.push_back(size.label);
  }
  for (double size : grid.sizes_b) {
    for (int batch : grid.batches) grid.cells.push_back(answer_cell(evidence, query, size, batch));
  }
  return grid;
}

}  // namespace ecocompute::decide
