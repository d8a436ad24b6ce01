// `ecocompute meter [--json] [--gpu UUID | --gpus UUID,UUID] -- CMD ARGS…`: energy of any program's own marked windows.
#include <iostream>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/exit_code.hpp"
#include "experiment/metered_command.hpp"
#include "util/text_list.hpp"

namespace ecocompute::cli {
namespace {

struct MeterArgs {
  std::vector<std::string> command;
  std::string gpu;
  std::string gpus;
  bool json = false;
  bool csv = false;
  bool cpu = false;
  bool allow_shared = false;
};

}  // namespace

Command make_meter_command(CLI::App& root) {
  auto args = std::make_shared<MeterArgs>();
  CLI::App* app = root.add_subcommand(
      "meter", "Run a program once and measure the energy of the windows it marks (docs/command-protocol.md); "
               "without markers, its whole run. Exit: the program's status, else 4 when a window failed");
  app->add_option("command", args->command, "The program and its arguments, after --")->required();
  app->add_option("--gpu", args->gpu, "GPU to read: UUID (GPU-…), PCI bus id, or cuda:N (default: first visible)");
  app->add_option("--gpus", args->gpus, "Read these GPUs together (UUIDs, comma-separated): energy summed, each shown")
      ->excludes("--gpu");
  app->add_flag("--cpu", args->cpu, "The program works on the CPU: read RAPL, not a GPU");
  app->add_flag("--allow-shared", args->allow_shared, "Measure even when other processes use the GPU");
  app->add_flag("--json", args->json, "Print JSON instead of a table");
  app->add_flag("--csv", args->csv, "Print CSV (CodeCarbon's column names and units: s, W, kWh) instead of a table")
      ->excludes("--json");
  return {app, [args] {
            meter::MeterOptions options;
            meter::name_gpus(options, args->gpu, split_commas(args->gpus));
            options.use_gpu = !args->cpu;
            options.allow_shared = args->allow_shared;
            auto run = experiment::run_metered_command(args->command, options);
            if (!run) return report_error(run.error());
            if (args->json) {
              std::cout << experiment::to_json(*run).dump(2) << "\n";
            } else if (args->csv) {
              std::cout << experiment::format_metered_csv(*run);
            } else {
              std::cout << experiment::format_metered_run(*run);
            }
            return run->exit_code();
          }};
}

}  // namespace ecocompute::cli
