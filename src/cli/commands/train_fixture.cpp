// `ecocompute train-fixture`: regenerates the trained fixture model (data/fixture/RECIPE.md).
#include <fmt/format.h>

#include <memory>

#include "cli/command.hpp"
#include "cli/exit_code.hpp"
#include "modelgen/fixture_trainer.hpp"
#include "util/file_io.hpp"
#include "util/log.hpp"

namespace ecocompute::cli {
namespace {

struct TrainFixtureArgs {
  modelgen::FixtureRecipe recipe;
  std::string out;
  std::string type = "f16";
};

int run_train_fixture(TrainFixtureArgs args) {
  auto type = modelgen::parse_weight_type(args.type);
  if (!type) return report_error(type.error());
  args.recipe.output_type = *type;
  if (args.recipe.training_text.empty()) args.recipe.training_text = data_dir() / "corpora/train/kjv-train.txt";
  if (args.recipe.heldout_text.empty()) {
    args.recipe.heldout_text = data_dir() / "corpora/quality/kjv-ruth-ecclesiastes.txt";
  }
  if (args.out.empty()) args.out = (data_dir() / "fixture/fixture-kjv-f16.gguf").string();

  log::info("train-fixture: {} layers × {} wide, vocab {}, {} steps of {} tokens, seed {}, {} threads",
            args.recipe.n_layer, args.recipe.n_embd, args.recipe.vocab_size, args.recipe.steps, args.recipe.n_ctx,
            args.recipe.seed, args.recipe.n_threads);
  auto summary = modelgen::train_fixture(
      args.out, args.recipe,
      [](const modelgen::FixtureProgress& p) {
        log::info("train-fixture: step {}/{} loss {:.4f} lr {:.2e} {:.0f} s", p.step, p.steps, p.train_loss,
                  p.learning_rate, p.elapsed.value);
      });
  if (!summary) return report_error(summary.error());
  fmt::print("fixture: {}\n", summary->path.string());
  fmt::print("sha256: {}\nbytes: {}\nparameters: {}\nvocabulary: {}\n", summary->sha256, summary->file_bytes,
             summary->n_params, summary->vocab_size);
  fmt::print("training tokens available: {}\ntokens trained: {}\n", summary->training_tokens_available,
             summary->tokens_trained);
  fmt::print("final train loss: {:.4f}\nheld-out loss: {:.4f} (perplexity {:.2f}, {}-token windows, BOS first)\n",
             summary->final_train_loss, summary->heldout_loss, summary->heldout_perplexity, args.recipe.n_ctx);
  fmt::print("training time: {:.1f} s\ntotal time: {:.1f} s\n", summary->training_time.value,
             summary->total_time.value);
  return exit_ok;
}

}  // namespace

Command make_train_fixture_command(CLI::App& root) {
  CLI::App* app = root.add_subcommand("train-fixture",
                                      "Regenerate the trained test model from its recipe (data/fixture/RECIPE.md)");
  auto args = std::make_shared<TrainFixtureArgs>();
  modelgen::FixtureRecipe& r = args->recipe;
  app->add_option("-o,--out", args->out, "GGUF to write (default <data>/fixture/fixture-kjv-f16.gguf)");
  app->add_option("--seed", r.seed, "Seed of the initial weights and of the training windows")->capture_default_str();
  app->add_option("--steps", r.steps, "Optimizer steps (one window each)")->capture_default_str();
  app->add_option("--threads", r.n_threads, "CPU threads")->capture_default_str();
  app->add_option("--training-text", r.training_text, "Training text (default <data>/corpora/train/kjv-train.txt)");
  app->add_option("--heldout-text", r.heldout_text,
                  "Held-out text (default <data>/corpora/quality/kjv-ruth-ecclesiastes.txt)");
  app->add_option("--vocab", r.vocab_size, "Tokenizer pieces")->capture_default_str();
  app->add_option("--layers", r.n_layer, "Transformer layers")->capture_default_str();
  app->add_option("--embd", r.n_embd, "Hidden width")->capture_default_str();
  app->add_option("--heads", r.n_head, "Attention heads")->capture_default_str();
  app->add_option("--ffn", r.n_ff, "Feed-forward width")->capture_default_str();
  app->add_option("--ctx", r.n_ctx, "Training window (tokens)")->capture_default_str();
  app->add_option("--lr", r.learning_rate, "Peak AdamW learning rate")->capture_default_str();
  app->add_option("--warmup", r.warmup_steps, "Warm-up steps")->capture_default_str();
  app->add_option("--type", args->type, "Stored weight type: f16|bf16|f32")->capture_default_str();
  app->add_option("--steps-per-context", r.steps_per_context,
                  "Steps between fresh training contexts (gradient accumulators are cleared only then)")
      ->capture_default_str();
  return {app, [args] { return run_train_fixture(*args); }};
}

}  // namespace ecocompute::cli
