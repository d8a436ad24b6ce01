// FixtureTrainer: tokenizer → initial GGUF → llama_opt_epoch over seeded windows → save → convert.
#include "modelgen/fixture_trainer.hpp"

#include <fmt/format.h>
#include <ggml-opt.h>
#include <llama.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <numbers>
#include <random>
#include <span>

#include "modelgen/fixture_tokenizer.hpp"
#include "engine/llama_backend.hpp"
#include "util/file_io.hpp"
#include "util/log.hpp"

namespace ecocompute::modelgen {
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

Seconds since(Clock::time_point start) {
  return Seconds{std::chrono::duration<double>(Clock::now() - start).count()};
}

struct ModelDeleter {
  void operator()(llama_model* m) const noexcept { llama_model_free(m); }
};
struct ContextDeleter {
  void operator()(llama_context* c) const noexcept { llama_free(c); }
};
struct DatasetDeleter {
  void operator()(ggml_opt_dataset* d) const noexcept { ggml_opt_dataset_free(d); }
};
struct ResultDeleter {
  void operator()(ggml_opt_result* r) const noexcept { ggml_opt_result_free(r); }
};
using ModelPtr = std::unique_ptr<llama_model, ModelDeleter>;
using ContextPtr = std::unique_ptr<llama_context, ContextDeleter>;
using DatasetPtr = std::unique_ptr<ggml_opt_dataset, DatasetDeleter>;
using ResultPtr = std::unique_ptr<ggml_opt_result, ResultDeleter>;

// Removes a folder and everything in it when it goes.
class ScratchDir {
 public:
  explicit ScratchDir(fs::path path) : path_(std::move(path)) {}
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// AdamW learning rate: linear warm-up to the peak, then cosine decay to 10 % of it at the last step.
// ggml-opt asks for the parameters once per optimizer step, which is what advances the schedule.
struct LearningRateSchedule {
  double peak = 1e-3;
  std::int64_t warmup = 0;
  std::int64_t total = 1;
  float weight_decay = 0.0F;
  std::int64_t step = 0;
  double current = 0.0;

  [[nodiscard]] double at(std::int64_t s) const {
    if (s < warmup) return peak * static_cast<double>(s + 1) / static_cast<double>(warmup);
    const double t = std::min(1.0, static_cast<double>(s - warmup) / static_cast<double>(std::max<std::int64_t>(1, total - warmup)));
    return peak * (0.1 + 0.9 * 0.5 * (1.0 + std::cos(std::numbers::pi * t)));
  }
};

ggml_opt_optimizer_params next_optimizer_params(void* userdata) {
  auto& schedule = *static_cast<LearningRateSchedule*>(userdata);
  ggml_opt_optimizer_params params = ggml_opt_get_default_optimizer_params(nullptr);
  schedule.current = schedule.at(schedule.step++);
  params.adamw.alpha = static_cast<float>(schedule.current);
  params.adamw.wd = schedule.weight_decay;
  return params;
}

Result<std::vector<llama_token>> tokenize(const llama_vocab* vocab, const std::string& text, const fs::path& source) {
  std::vector<llama_token> tokens(text.size() + 2);
  const std::int32_t n = llama_tokenize(vocab, text.data(), static_cast<std::int32_t>(text.size()), tokens.data(),
                                        static_cast<std::int32_t>(tokens.size()), /*add_special=*/false,
                                        /*parse_special=*/false);
  if (n < 0) return unexpected(ErrorCode::internal, "tokenizing " + source.string() + " overflowed its buffer");
  tokens.resize(static_cast<std::size_t>(n));
  return tokens;
}

// Builds a dataset of windows: inputs BOS, t[s] … t[s + n_ctx - 2]; labels t[s] … t[s + n_ctx - 1].
DatasetPtr make_windows(std::span<const llama_token> tokens, std::span<const std::int64_t> starts, std::int64_t n_ctx,
                        llama_token bos) {
  DatasetPtr dataset(ggml_opt_dataset_init(GGML_TYPE_I32, GGML_TYPE_I32, n_ctx, n_ctx,
                                           static_cast<std::int64_t>(starts.size()), /*ndata_shard=*/1));
  auto* data = static_cast<llama_token*>(ggml_opt_dataset_data(dataset.get())->data);
  auto* labels = static_cast<llama_token*>(ggml_opt_dataset_labels(dataset.get())->data);
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const std::size_t s = static_cast<std::size_t>(starts[i]);
    llama_token* in = data + i * static_cast<std::size_t>(n_ctx);
    in[0] = bos;
    std::memcpy(in + 1, tokens.data() + s, static_cast<std::size_t>(n_ctx - 1) * sizeof(llama_token));
    std::memcpy(labels + i * static_cast<std::size_t>(n_ctx), tokens.data() + s,
                static_cast<std::size_t>(n_ctx) * sizeof(llama_token));
  }
  return dataset;
}

double mean_loss(ggml_opt_result* result) {
  double loss = 0.0;
  double uncertainty = 0.0;
  ggml_opt_result_loss(result, &loss, &uncertainty);
  return loss;
}

llama_model_kv_override string_override(const char* key, const std::string& value) {
  llama_model_kv_override o{};
  o.tag = LLAMA_KV_OVERRIDE_TYPE_STR;
  std::snprintf(o.key, sizeof(o.key), "%s", key);
  std::snprintf(o.val_str, sizeof(o.val_str), "%s", value.c_str());
  return o;
}

llama_model_kv_override int_override(const char* key, std::int64_t value) {
  llama_model_kv_override o{};
  o.tag = LLAMA_KV_OVERRIDE_TYPE_INT;
  std::snprintf(o.key, sizeof(o.key), "%s", key);
  o.val_i64 = value;
  return o;
}

llama_ftype output_ftype(WeightType type) {
  switch (type) {
    case WeightType::f32: return LLAMA_FTYPE_ALL_F32;
    case WeightType::f16: return LLAMA_FTYPE_MOSTLY_F16;
    case WeightType::bf16: return LLAMA_FTYPE_MOSTLY_BF16;
  }
  return LLAMA_FTYPE_MOSTLY_F16;
}

Result<std::string> read_text(const fs::path& path, std::string_view role) {
  auto text = read_file(path);
  if (!text) return Error(text.error().code(), fmt::format("{} text", role), text.error());
  if (text->empty()) return unexpected(ErrorCode::invalid_input, fmt::format("{} text {} is empty", role, path.string()));
  return text;
}

std::string vocab_listing(const TokenizerSpec& t) {
  std::string out = "id\tscore\ttype\tpiece\n";
  for (std::size_t i = 0; i < t.tokens.size(); ++i) {
    std::string piece;
    for (char c : t.tokens[i]) piece += c == '\n' ? std::string("\\n") : c == '\t' ? std::string("\\t") : std::string(1, c);
    out += fmt::format("{}\t{}\t{}\t{}\n", i, t.scores[i], t.token_types[i], piece);
  }
  return out;
}

}  // namespace

Result<FixtureTrainingSummary> train_fixture(const fs::path& out, const FixtureRecipe& recipe,
                                             const FixtureProgressSink& on_progress) {
  const Clock::time_point started = Clock::now();
  if (recipe.steps <= 0 || recipe.n_ctx < 8 || recipe.steps_per_context <= 0 || !(recipe.learning_rate > 0.0F)) {
    return unexpected(ErrorCode::invalid_argument, "fixture recipe: steps, steps per context and learning rate "
                                                   "must be > 0 and the context at least 8 tokens");
  }
  auto train_text = read_text(recipe.training_text, "training");
  if (!train_text) return train_text.error();
  auto heldout_text = read_text(recipe.heldout_text, "held-out");
  if (!heldout_text) return heldout_text.error();

  auto tokenizer = build_fixture_tokenizer(*train_text, recipe.vocab_size);
  if (!tokenizer) return tokenizer.error();
  log::info("train-fixture: tokenizer of {} pieces built ({:.1f} s)", tokenizer->tokens.size(), since(started).value);

  ModelShape shape;
  shape.id = "fixture";
  shape.display_name = "EcoCompute KJV fixture";
  shape.architecture = "llama";
  shape.n_layer = recipe.n_layer;
  shape.n_embd = recipe.n_embd;
  shape.n_head = recipe.n_head;
  shape.n_head_kv = recipe.n_head;
  shape.n_ff = recipe.n_ff;
  shape.n_vocab = static_cast<std::uint32_t>(tokenizer->tokens.size());
  shape.n_ctx_train = recipe.n_ctx;
  shape.rope_freq_base = 10000.0F;
  shape.norm_rms_eps = 1e-5F;
  shape.tied_embeddings = false;  // llama_opt does not train token_embd; the output matrix must be its own

  std::error_code ec;
  const fs::path folder = out.has_parent_path() ? out.parent_path() : fs::path(".");
  fs::create_directories(folder, ec);
  if (ec) return unexpected(ErrorCode::io, fmt::format("cannot create folder {}: {}", folder.string(), ec.message()));
  ScratchDir scratch(folder / fmt::format(".train-fixture-{}", ::getpid()));
  fs::create_directories(scratch.path(), ec);
  if (ec) return unexpected(ErrorCode::io, "cannot create " + scratch.path().string());

  // Token embeddings stay at their initial values (llama_opt leaves token_embd out), so they start at
  // unit scale, like the residual stream they feed; every other matrix starts small.
  ModelWriteRequest initial;
  initial.shape = shape;
  initial.tokenizer = *tokenizer;
  initial.type = WeightType::f32;
  initial.seed = recipe.seed;
  initial.init_std = 0.02F;
  initial.embedding_std = 1.0F;
  initial.name = "EcoCompute KJV fixture (untrained)";
  const fs::path initial_path = scratch.path() / "initial-f32.gguf";
  if (auto written = write_model(initial_path, initial); !written) return written.error();

  engine::ensure_llama_backend();
  llama_model_params model_params = llama_model_default_params();
  model_params.n_gpu_layers = 0;
  model_params.load_mode = LLAMA_LOAD_MODE_NONE;  // training writes into the weights
  model_params.use_extra_bufts = false;
  ModelPtr model(llama_model_load_from_file(initial_path.c_str(), model_params));
  if (!model) return unexpected(ErrorCode::engine, "llama.cpp cannot load the initial fixture " + initial_path.string());
  const llama_vocab* vocab = llama_model_get_vocab(model.get());

  auto train_tokens = tokenize(vocab, *train_text, recipe.training_text);
  if (!train_tokens) return train_tokens.error();
  auto heldout_tokens = tokenize(vocab, *heldout_text, recipe.heldout_text);
  if (!heldout_tokens) return heldout_tokens.error();
  log::info("train-fixture: {} training and {} held-out tokens ({:.1f} s)", train_tokens->size(),
            heldout_tokens->size(), since(started).value);
  const auto n_ctx = static_cast<std::int64_t>(recipe.n_ctx);
  if (static_cast<std::int64_t>(train_tokens->size()) <= n_ctx ||
      static_cast<std::int64_t>(heldout_tokens->size()) < n_ctx) {
    return unexpected(ErrorCode::invalid_input, fmt::format("the training and held-out texts need more than {} "
                                                            "tokens each (have {} and {})",
                                                            n_ctx, train_tokens->size(), heldout_tokens->size()));
  }

  LearningRateSchedule schedule;
  schedule.peak = recipe.learning_rate;
  schedule.warmup = recipe.warmup_steps;
  schedule.total = recipe.steps;
  schedule.weight_decay = recipe.weight_decay;

  // A fresh training context (and so fresh gradient accumulators and AdamW moments) every
  // steps_per_context steps: with llama.cpp's rebuilt (non-static) graphs, ggml-opt never clears its
  // gradient accumulators, so each step's gradient is the sum of every gradient since the context was
  // made. Restarting bounds that sum to a short block (a growing mini-batch) instead of all history.
  auto new_training_context = [&]() -> ContextPtr {
    llama_context_params context_params = llama_context_default_params();
    context_params.n_ctx = recipe.n_ctx;
    context_params.n_batch = recipe.n_ctx;
    context_params.n_ubatch = recipe.n_ctx;  // one window per optimizer step, gradients through every position
    context_params.n_seq_max = 1;
    context_params.n_threads = recipe.n_threads;
    context_params.n_threads_batch = recipe.n_threads;
    context_params.type_k = GGML_TYPE_F32;  // the backward pass needs F32 caches
    context_params.type_v = GGML_TYPE_F32;
    context_params.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
    context_params.no_perf = true;
    ContextPtr ctx(llama_init_from_model(model.get(), context_params));
    if (!ctx) return ctx;
    llama_opt_params opt_params{};
    opt_params.n_ctx_train = 0;  // the context's n_ctx
    opt_params.param_filter = llama_opt_param_filter_all;
    opt_params.param_filter_ud = nullptr;
    opt_params.get_opt_pars = next_optimizer_params;
    opt_params.get_opt_pars_ud = &schedule;
    opt_params.optimizer_type = GGML_OPT_OPTIMIZER_TYPE_ADAMW;
    llama_opt_init(ctx.get(), model.get(), opt_params);
    return ctx;
  };
  ContextPtr ctx;

  const llama_token bos = llama_vocab_bos(vocab);
  std::mt19937_64 rng(recipe.seed);
  std::uniform_int_distribution<std::int64_t> pick_start(0, static_cast<std::int64_t>(train_tokens->size()) - n_ctx);
  ResultPtr result_train(ggml_opt_result_init());
  ResultPtr result_eval(ggml_opt_result_init());
  FixtureTrainingSummary summary;
  const Clock::time_point training_started = Clock::now();
  for (std::int64_t step = 0; step < recipe.steps; step += recipe.steps_per_context) {
    const std::int64_t n = std::min(recipe.steps_per_context, recipe.steps - step);
    ctx.reset();
    ctx = new_training_context();
    if (!ctx) return unexpected(ErrorCode::engine, "llama.cpp cannot create a training context for the fixture");
    std::vector<std::int64_t> starts(static_cast<std::size_t>(n));
    for (std::int64_t& s : starts) s = pick_start(rng);
    DatasetPtr windows = make_windows(*train_tokens, starts, n_ctx, bos);
    ggml_opt_result_reset(result_train.get());
    llama_opt_epoch(ctx.get(), windows.get(), result_train.get(), result_eval.get(), /*idata_split=*/n, nullptr, nullptr);
    summary.final_train_loss = mean_loss(result_train.get());
    if (!std::isfinite(summary.final_train_loss)) {
      return unexpected(ErrorCode::engine, fmt::format("fixture training diverged at step {} (loss {})", step + n,
                                                       summary.final_train_loss));
    }
    if (on_progress) {
      on_progress(FixtureProgress{step + n, recipe.steps, summary.final_train_loss, schedule.current,
                                  since(training_started)});
    }
  }
  summary.training_time = since(training_started);

  std::vector<std::int64_t> heldout_starts;
  for (std::int64_t s = 0; s + n_ctx <= static_cast<std::int64_t>(heldout_tokens->size()) &&
                          heldout_starts.size() < recipe.heldout_max_windows;
       s += n_ctx) {
    heldout_starts.push_back(s);
  }
  DatasetPtr heldout = make_windows(*heldout_tokens, heldout_starts, n_ctx, bos);
  ctx.reset();
  ctx = new_training_context();
  if (!ctx) return unexpected(ErrorCode::engine, "llama.cpp cannot create an evaluation context for the fixture");
  ggml_opt_result_reset(result_eval.get());
  llama_opt_epoch(ctx.get(), heldout.get(), result_train.get(), result_eval.get(), /*idata_split=*/0, nullptr, nullptr);
  summary.heldout_loss = mean_loss(result_eval.get());
  summary.heldout_perplexity = std::exp(summary.heldout_loss);
  log::info("train-fixture: held-out loss {:.4f} ({:.1f} s)", summary.heldout_loss, since(started).value);

  const fs::path trained_path = scratch.path() / "trained-f32.gguf";
  llama_model_save_to_file(model.get(), trained_path.c_str());
  summary.n_params = llama_model_n_params(model.get());
  ctx.reset();
  model.reset();

  const std::string training_sha = sha256_hex(*train_text);
  std::vector<llama_model_kv_override> overrides = {
      string_override("general.name", "EcoCompute KJV fixture"),
      string_override(std::string(engine::weights_metadata_key).c_str(), std::string(engine::weights_trained_fixture)),
      int_override("ecocompute.seed", static_cast<std::int64_t>(recipe.seed)),
      int_override("ecocompute.training_steps", recipe.steps),
      string_override("ecocompute.training_text", recipe.training_text.filename().string()),
      string_override("ecocompute.training_text_sha256", training_sha),
      string_override("ecocompute.recipe", "data/fixture/RECIPE.md (ecocompute train-fixture)"),
  };
  overrides.emplace_back();  // an empty key ends the list
  llama_model_quantize_params convert = llama_model_quantize_default_params();
  convert.nthread = recipe.n_threads;
  convert.ftype = output_ftype(recipe.output_type);
  convert.kv_overrides = overrides.data();
  const fs::path converted = scratch.path() / "fixture.gguf";
  if (llama_model_quantize(trained_path.c_str(), converted.c_str(), &convert) != 0) {
    return unexpected(ErrorCode::engine, "llama.cpp cannot convert the trained fixture to " +
                                             std::string(to_string(recipe.output_type)));
  }
  fs::rename(converted, out, ec);
  if (ec) return unexpected(ErrorCode::io, "cannot move the fixture into " + out.string() + ": " + ec.message());
  fs::path listing = out;
  listing.replace_extension(".vocab.tsv");
  if (auto written = write_file_atomic(listing, vocab_listing(*tokenizer)); !written) return written.error();

  auto sha = sha256_file(out);
  if (!sha) return sha.error();
  summary.path = out;
  summary.vocab_size = tokenizer->tokens.size();
  summary.training_tokens_available = static_cast<std::int64_t>(train_tokens->size());
  summary.tokens_trained = recipe.steps * n_ctx;
  summary.sha256 = *sha;
  summary.file_bytes = fs::file_size(out);
  summary.total_time = since(started);
  return summary;
}

}  // namespace ecocompute::modelgen
