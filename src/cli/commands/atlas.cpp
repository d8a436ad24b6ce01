// `ecocompute atlas`: one format's ΔE vs F16 over model size × batch for a GPU and engine, every cell the
// decision model's answer (decide::predict) with its basis (measured cells first-class, the rest hatched in the heatmap).
#include <fmt/format.h>

#include <iostream>

#include "cli/atlas_sizes.hpp"
#include "cli/command.hpp"
#include "cli/commands/evidence_flags.hpp"
#include "cli/exit_code.hpp"
#include "data/engine_name.hpp"
#include "decide/atlas_answers.hpp"
#include "report/atlas_grid.hpp"
#include "util/file_io.hpp"

namespace ecocompute::cli {
namespace {

struct AtlasFlags {
  std::string gpu = "H200";
  std::string engine = "llama.cpp";
  std::string precision = "Q4_K_M";
  std::string batches = "1,2,4,8,16,32,64";
  EvidenceFlags evidence;
  bool json = false;
  std::string svg;
};

int run_atlas(const AtlasFlags& flags) {
  auto evidence = flags.evidence.load();
  if (!evidence) return report_error(evidence.error());
  decide::AtlasQuery query{flags.gpu, flags.engine, flags.precision, {}, {}};
  auto batches = decide::parse_atlas_batches(flags.batches, "--batches");
  if (!batches) return report_error(batches.error());
  query.batches = std::move(*batches);
  auto sizes = campaign_atlas_sizes();
  if (!sizes) return report_error(sizes.error());
  query.sizes = std::move(*sizes);
  const report::AtlasGrid grid = decide::atlas_grid(*evidence, query);
  if (!flags.svg.empty()) {
    if (auto written = write_file_atomic(flags.svg, report::atlas_svg(grid)); !written) return report_error(written.error());
  }
  std::cout << (flags.json ? report::atlas_json(grid).dump(2) + "\n" : report::atlas_text(grid));
  return exit_ok;
}

}  // namespace

Command make_atlas_command(CLI::App& root) {
  auto flags = std::make_shared<AtlasFlags>();
  CLI::App* app = root.add_subcommand(
      "atlas", "One format's ΔE vs F16 over model size × batch for a GPU and engine: the decision model's answer "
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
