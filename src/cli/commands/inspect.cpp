// `ecocompute inspect MODEL.gguf`: what a GGUF holds (read from its header) and whether llama.cpp
// loads it, checked in a child process so that a file that makes llama.cpp abort is a message, not a
// crash. `measure` and `quantize` run the same check before they hand a file to llama.cpp.
#include <iostream>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "cli/exit_code.hpp"
#include "engine/gguf_inspection.hpp"
#include "engine/model_probe.hpp"
#include "util/json.hpp"

namespace ecocompute::cli {
namespace {

struct InspectFlags {
  std::filesystem::path model;
  bool json = false;
  bool quiet = false;
  bool in_process = false;
};

OrderedJson inspection_json(const engine::GgufInspection& g) {
  const engine::ModelInfo& m = g.model;
  return OrderedJson{{"file", m.path.string()},           {"name", m.name},
                     {"architecture", m.architecture},    {"gguf_type", m.gguf_type},
                     {"type_guessed", g.type_guessed},    {"precision_class", m.precision_class},
                     {"bits_per_weight", m.bits_per_weight}, {"n_params", m.n_params},
                     {"tensor_bytes", m.size_bytes},      {"file_bytes", g.file_bytes},
                     {"n_tensors", g.n_tensors},          {"n_vocab", m.n_vocab},
                     {"n_ctx_train", m.n_ctx_train},      {"weights", g.weights_label.empty() ? "unlabelled" : g.weights_label},
                     {"gguf_version", g.gguf_version}};
}

int run_inspect(const InspectFlags& flags) {
  if (auto missing = report_missing_model(flags.model)) return *missing;
  auto inspection = engine::inspect_gguf(flags.model);
  if (!inspection) return report_error(inspection.error());
  // --in-process is what the check's child runs: an abort here ends only the child.
  auto loads = flags.in_process ? engine::dry_load(flags.model) : engine::check_model_loads(flags.model);
  if (!loads) return report_error(loads.error());
  if (flags.quiet) return exit_ok;
  OrderedJson out = inspection_json(*inspection);
  out["llama_cpp_loads"] = true;
  if (flags.json) {
    std::cout << out.dump(2) << "\n";
    return exit_ok;
  }
  for (const auto& [key, value] : out.items()) {
    std::cout << fmt::format("{:<16} {}\n", key + ":", value.is_string() ? value.get<std::string>() : value.dump());
  }
  return exit_ok;
}

}  // namespace

Command make_inspect_command(CLI::App& root) {
  CLI::App* app = root.add_subcommand(
      "inspect", "Show what a GGUF holds (type, parameters, bits per weight, weights) and check that llama.cpp "
                 "loads it (in a child process: a file that makes llama.cpp abort is reported, exit 2)");
  auto flags = std::make_shared<InspectFlags>();
  app->add_option("model", flags->model, "GGUF file")->required();
  app->add_flag("--json", flags->json, "Print JSON");
  app->add_flag("--quiet", flags->quiet, "Print nothing; the exit code says whether the file loads");
  app->add_flag("--in-process", flags->in_process,
                "Load in this process (an abort of llama.cpp ends it: what the child of the check runs)");
  return {app, [flags] { return run_inspect(*flags); }};
}

}  // namespace ecocompute::cli
