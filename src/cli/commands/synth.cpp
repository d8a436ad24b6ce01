// `ecocompute synth`: writes a GGUF with a named model's real shapes and random weights.
#include <fmt/format.h>

#include <cstdio>
#include <memory>

#include "cli/command.hpp"
#include "cli/exit_code.hpp"
#include "modelgen/hf_config.hpp"
#include "modelgen/model_writer.hpp"
#include "modelgen/synthetic_model.hpp"
#include "util/file_io.hpp"
#include "util/log.hpp"

namespace ecocompute::cli {
namespace {

struct SynthArgs {
  std::string arch;
  std::string type = "f16";
  std::string out;
  std::string hf_config;
  std::uint64_t seed = 0;
  std::string vocab_dir;
  std::uint32_t layers = 0;
  bool list = false;
};

int list_shapes() {
  fmt::print("{:<12} {:<14} {:>7} {:>6} {:>6} {:>4} {:>6} {:>7} {:>5} {:>15}\n", "arch", "model", "layers", "hidden",
             "heads", "kv", "ffn", "vocab", "tied", "parameters");
  for (const modelgen::ModelShape& s : modelgen::known_shapes()) {
    fmt::print("{:<12} {:<14} {:>7} {:>6} {:>6} {:>4} {:>6} {:>7} {:>5} {:>15}{}\n", s.id, s.display_name.substr(0, 14),
               s.n_layer, s.n_embd, s.n_head, s.n_head_kv, s.n_ff, s.n_vocab, s.tied_embeddings ? "yes" : "no",
               modelgen::parameter_count(s), s.test_only ? "  (test only)" : "");
  }
  return exit_ok;
}

int run_synth(const SynthArgs& args) {
  if (args.list) return list_shapes();
  if (args.arch.empty() || (args.out.empty() && args.hf_config.empty())) {
    log::error("synth needs --arch and -o or --hf-config (see --list for the architectures)");
    return exit_usage;
  }
  if (!args.hf_config.empty()) {
    auto shape = modelgen::find_shape(args.arch);
    if (!shape) return report_error(shape.error());
    if (auto wrote = write_file_atomic(args.hf_config, modelgen::hf_config(*shape).dump(2) + "\n"); !wrote) {
      return report_error(wrote.error());
    }
    fmt::print("wrote {}: the Hugging Face config of the {} shape\n", args.hf_config, args.arch);
    if (args.out.empty()) return exit_ok;
  }
  auto type = modelgen::parse_weight_type(args.type);
  if (!type) return report_error(type.error());

  modelgen::SynthOptions options;
  options.arch = args.arch;
  options.type = *type;
  options.seed = args.seed;
  options.layers = args.layers;
  options.vocab_dir = args.vocab_dir;
  int last_percent = -1;
  options.on_progress = [&last_percent](const modelgen::WriteProgress& p) {
    const int percent = static_cast<int>(100.0 * static_cast<double>(p.bytes_written) / static_cast<double>(p.bytes_total));
    if (percent / 5 == last_percent / 5 && p.tensors_written != p.n_tensors) return;
    last_percent = percent;
    log::info("synth: {:3d}% {:.2f}/{:.2f} GB, tensor {}/{} {}", percent, static_cast<double>(p.bytes_written) / 1e9,
              static_cast<double>(p.bytes_total) / 1e9, p.tensors_written, p.n_tensors, p.tensor_name);
  };
  auto written = modelgen::write_synthetic_model(args.out, options);
  if (!written) return report_error(written.error());
  fmt::print("wrote {}: {} shape, {} parameters, {} weights (random, seed {}), {} bytes\n", written->path.string(),
             args.arch, written->n_params, modelgen::to_string(*type), args.seed, written->file_bytes);
  return exit_ok;
}

}  // namespace

Command make_synth_command(CLI::App& root) {
  CLI::App* app = root.add_subcommand(
      "synth", "Write a GGUF with a real model's shapes and random weights (energy and speed only; no quality)");
  auto args = std::make_shared<SynthArgs>();
  app->add_option("--arch", args->arch, "Architecture shape: llama3-1b|llama3-3b|llama3-8b|qwen2-0.5b|qwen2-1.5b|"
                                        "qwen2-7b|qwen2.5-3b|qwen2.5-14b (see --list)");
  app->add_option("--type", args->type, "Storage type of the weight matrices: f16|bf16|f32")->capture_default_str();
  app->add_option("-o,--output", args->out, "GGUF file to write");
  app->add_option("--hf-config", args->hf_config,
                  "Also (or only) write the shape's Hugging Face config.json, for transformers to build the same shape");
  app->add_option("--seed", args->seed, "Seed of the random weights (same seed, same bytes)")->capture_default_str();
  app->add_option("--vocab-dir", args->vocab_dir,
                  "Folder with llama.cpp's ggml-vocab-*.gguf (default: $ECOCOMPUTE_VOCAB_DIR, <data>/vocab, "
                  "third_party/llama.cpp/models)");
  app->add_option("--layers", args->layers,
                  "Only the first N layers, each matrix at the full model's shape (for profiling kernels; not for "
                  "energy per token)")
      ->check(CLI::Range(1, 1000));
  app->add_flag("--list", args->list, "List the known shapes and their parameter counts");
  return {app, [args] { return run_synth(*args); }};
}

}  // namespace ecocompute::cli
