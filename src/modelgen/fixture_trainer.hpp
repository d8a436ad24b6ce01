// FixtureTrainer: trains the tiny Llama-architecture test model on a public-domain text with
// llama.cpp's own training API (llama_opt_*) on the CPU, and writes it as an F16 GGUF.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>

#include "modelgen/model_writer.hpp"
#include "util/result.hpp"
#include "util/units.hpp"

namespace ecocompute::modelgen {

/// Everything that decides the trained fixture; the defaults are the committed fixture's recipe.
struct FixtureRecipe {
  std::filesystem::path training_text;  ///< UTF-8 text the tokenizer and the model learn from
  std::filesystem::path heldout_text;   ///< text never trained on; its loss is logged and reported
  std::uint64_t seed = 1;               ///< initial weights and the order of training windows
  std::size_t vocab_size = 1024;        ///< pieces of the fixture's own tokenizer
  std::uint32_t n_layer = 2;
  std::uint32_t n_embd = 256;           ///< multiple of 256, so k-quants (Q4_K …) apply to every matrix
  std::uint32_t n_head = 4;
  std::uint32_t n_ff = 512;
  std::uint32_t n_ctx = 256;            ///< training window (tokens, BOS first); becomes context_length
  std::int64_t steps_per_context = 10;  ///< steps between fresh training contexts (see fixture_trainer.cpp)
  std::int64_t steps = 300;             ///< optimizer steps, one window of n_ctx tokens each
  float learning_rate = 1e-3F;          ///< AdamW peak; linear warm-up, then cosine decay to 10 %
  std::int64_t warmup_steps = 20;
  float weight_decay = 0.0F;
  int n_threads = 1;                    ///< one thread: the same sums in the same order on any machine
  WeightType output_type = WeightType::f16;
  std::size_t heldout_max_windows = 8;  ///< held-out windows scored at the end (the run's own check)
};

/// Progress of a training run, reported after every block of steps_per_context steps.
struct FixtureProgress {
  std::int64_t step = 0;
  std::int64_t steps = 0;
  double train_loss = 0.0;  ///< mean cross-entropy (nats/token) over the last block of steps
  double learning_rate = 0.0;
  Seconds elapsed{0.0};
};
using FixtureProgressSink = std::function<void(const FixtureProgress&)>;

/// What a training run produced, measured while it ran.
struct FixtureTrainingSummary {
  std::filesystem::path path;
  std::uint64_t n_params = 0;
  std::size_t vocab_size = 0;
  std::int64_t training_tokens_available = 0;  ///< tokens of the training text
  std::int64_t tokens_trained = 0;             ///< steps × n_ctx
  double final_train_loss = 0.0;               ///< mean loss of the last reporting interval
  double heldout_loss = 0.0;                   ///< mean loss on the held-out text's n_ctx windows
  double heldout_perplexity = 0.0;             ///< exp(heldout_loss)
  Seconds training_time{0.0};                  ///< wall time of the optimizer steps alone
  Seconds total_time{0.0};                     ///< wall time of the whole recipe
  std::string sha256;                          ///< of the written file
  std::uint64_t file_bytes = 0;
};

/// Runs the recipe and writes the model to `out` (through a temporary folder beside it):
/// tokenizer from the training text, seeded random F32 weights written by write_model, llama.cpp
/// training with AdamW on seeded random windows, llama_model_save_to_file, then conversion to
/// `output_type` with the metadata ecocompute.weights = "trained-fixture" and the recipe.
/// Errors: not_found / invalid_input for the texts, engine when llama.cpp refuses the model, io.
Result<FixtureTrainingSummary> train_fixture(const std::filesystem::path& out, const FixtureRecipe& recipe,
                                             const FixtureProgressSink& on_progress);

}  // namespace ecocompute::modelgen
