// `ecocompute atlas`: one format's ΔE vs F16 over model size × batch for a GPU and engine, every cell the
// decision layer's answer with its basis (measured cells first-class, the rest hatched in the heatmap).
#include <fmt/format.h>

#include <iostream>

#include "cli/command.hpp"
#include "cli/commands/evidence_flags.hpp"
#include "cli/exit_code.hpp"
#include "data/engine_name.hpp"
#include "decide/estimate.hpp"
#include "decide/prediction.hpp"
#include "modelgen/synthetic_model.hpp"
#include "report/atlas_grid.hpp"
#include "util/file_io.hpp"
#include "util/text_list.hpp"

namespace ecocompute::cli {
namespace {

// The atlas's sizes: the seven shapes the H200 campaign measures (0.5–14.8 B), by their real names.
constexpr std::array<std::string_view, 7> kAtlasShapes{"qwen2-0.5b", "llama3-1b", "qwen2-1.5b", "llama3-3b",
                                                        "qwen2-7b",   "llama3-8b", "qwen2.5-14b"};

struct AtlasFlags {
  std::string gpu = "H200";
  std::string engine = "llama.cpp";
  std::string precision = "Q4_K_M";
  std::string batches = "1,2,4,8,16,32,64";
  EvidenceFlags evidence;
  bool json = false;
  std::string svg;
};

report::AtlasCell answer_cell(const decide::Evidence& evidence, const AtlasFlags& flags, double params_b, int batch) {
  report::AtlasCell cell{params_b, batch, std::nullopt, std::nullopt, std::nullopt, "unavailable", 0};
  decide::EstimateRequest request;
  request.gpu = flags.gpu;
  request.engine = flags.engine;
  request.precision = flags.precision;
  request.params_b = params_b;
  request.batch = batch;
  auto query = decide::resolve_estimate_request(request);
  if (!query) return cell;
  auto answer = decide::predict(evidence, *query);
  if (!answer || !answer->delta) return cell;  // nothing to answer from: a grey cell
  const decide::Figure& delta = *answer->delta;
  cell.delta_pct = delta.value;
  cell.ci_low_pct = delta.low;
  cell.ci_high_pct = delta.high;
  cell.basis = std::string(data::to_string(delta.basis.basis));
  if (delta.basis.basis == data::Basis::measured) cell.sessions = static_cast<int>(delta.basis.sessions.size());
  return cell;
}

Result<report::AtlasGrid> build_grid(const decide::Evidence& evidence, const AtlasFlags& flags) {
  report::AtlasGrid grid;
  grid.gpu = flags.gpu;
  grid.engine = flags.engine;
  grid.precision = flags.precision;
  grid.scope = "each cell the decision model's answer (decide::predict) with its 95 % predictive interval for a new card; the H200 cells are "
               "synthetic weights, gross GPU energy, short context";
  for (const std::string& item : split_commas(flags.batches)) {
    int batch = 0;
    if (std::sscanf(item.c_str(), "%d", &batch) != 1 || batch < 1 || batch > 512 || std::to_string(batch) != item) {
      return unexpected(ErrorCode::invalid_argument, fmt::format("--batches: '{}' is not a batch from 1 to 512", item));
    }
    grid.batches.push_back(batch);
  }
  for (std::string_view id : kAtlasShapes) {
    auto shape = modelgen::find_shape(id);
    if (!shape) return shape.error();
    grid.sizes_b.push_back(static_cast<double>(modelgen::parameter_count(*shape)) / 1e9);
    grid.size_labels.push_back(shape->display_name);
  }
  for (double size : grid.sizes_b) {
    for (int batch : grid.batches) grid.cells.push_back(answer_cell(evidence, flags, size, batch));
  }
  return grid;
}

int run_atlas(const AtlasFlags& flags) {
  auto evidence = flags.evidence.load();
  if (!evidence) return report_error(evidence.error());
  auto grid = build_grid(*evidence, flags);
  if (!grid) return report_error(grid.error());
  if (!flags.svg.empty()) {
    if (auto written = write_file_atomic(flags.svg, report::atlas_svg(*grid)); !written) return report_error(written.error());
  }
  std::cout << (flags.json ? report::atlas_json(*grid).dump(2) + "\n" : report::atlas_text(*grid));
  return exit_ok;
}

}  // namespace

Command make_atlas_command(CLI::App& root) {
  auto flags = std::make_shared<AtlasFlags>();
  CLI::App* app = root.add_subcommand(
      "atlas", "One format's ΔE vs F16 over model size × batch for a GPU and engine: the decision layer's answer "
               "in every cell, each with its basis (measured or not)");
  app->add_option("--gpu,-g", flags->gpu, "GPU name")->capture_default_str();
  app->add_option("--engine,-e", flags->engine, "Engine, in any case")
      ->capture_default_str()
      ->transform([](std::string name) { return data::canonical_engine_name(name); });
  app->add_option("--precision,-p", flags->precision, "The format (a GGUF type for llama.cpp)")->capture_default_str();
  app->add_option("--batches", flags->batches, "Batch levels, comma separated")->capture_default_str();
  flags->evidence.add_to(app);
  app->add_flag("--json", flags->json, "Print the grid as JSON");
  app->add_option("--svg", flags->svg, "Also write the heatmap to this SVG file");
  return {app, [flags] { return run_atlas(*flags); }};
}

}  // namespace ecocompute::cli
