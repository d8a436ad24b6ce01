// `ecocompute quantize`: puts a precision's file into the quantization cache ahead of a measurement.
#include <chrono>
#include <iostream>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "cli/exit_code.hpp"
#include "engine/gguf_inspection.hpp"
#include "engine/model_probe.hpp"
#include "engine/precision.hpp"
#include "engine/quantization_cache.hpp"
#include "util/text_list.hpp"

namespace ecocompute::cli {
namespace {

struct QuantizeFlags {
  std::filesystem::path model;
  std::string type;
  std::filesystem::path cache_dir;
  int threads = 0;
};

int run_quantize(const QuantizeFlags& flags) {
  // Several types in one process hash the source once and check once that llama.cpp loads it: at 8 B
  // each of those reads 16 GB.
  std::vector<GgufType> types;
  for (const std::string& name : split_commas(flags.type)) {
    auto type = parse_gguf_type(name);
    if (!type) return report_error(type.error());
    types.push_back(*type);
  }
  if (types.empty()) return report_error(Error{ErrorCode::invalid_argument, "--type: no type given"});
  if (auto missing = report_missing_model(flags.model)) return *missing;
  // Our header checks first (clear messages), then llama.cpp's loader in a child: its quantizer loads
  // the file, and a file it aborts on must not take this process with it.
  if (auto inspected = engine::inspect_gguf(flags.model); !inspected) return report_error(inspected.error());
  if (auto loads = engine::check_model_loads(flags.model); !loads) return report_error(loads.error());
  engine::QuantizationCache cache(flags.cache_dir.empty() ? engine::QuantizationCache::default_folder()
                                                          : flags.cache_dir);
  for (GgufType type : types) {
    const auto start = std::chrono::steady_clock::now();
    auto prepared = cache.prepare(flags.model, type, flags.threads);
    if (!prepared) return report_error(prepared.error());
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    std::cout << prepared->path.string() << "\t" << engine::to_string(prepared->origin) << "\t"
              << fmt::format("{:.1f} s", took.count()) << std::endl;
  }
  return exit_ok;
}

}  // namespace

Command make_quantize_command(CLI::App& root) {
  CLI::App* app = root.add_subcommand(
      "quantize", "Quantize an F32/F16/BF16 GGUF into the cache (what measure does before its first window)");
  auto flags = std::make_shared<QuantizeFlags>();
  app->add_option("-m,--model", flags->model, "Source GGUF")->required();
  app->add_option("--type", flags->type, "Target GGUF type (e.g. Q8_0, Q4_K_M, IQ4_NL), or several, comma separated")
      ->required();
  app->add_option("--cache-dir", flags->cache_dir, "Cache folder (default: $XDG_CACHE_HOME/ecocompute)");
  app->add_option("-t,--threads", flags->threads, "CPU threads (0: all)")->check(CLI::Range(0, 1024));
  return {app, [flags] { return run_quantize(*flags); }};
}

}  // namespace ecocompute::cli
