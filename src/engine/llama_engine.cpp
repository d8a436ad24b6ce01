// LlamaEngine: load, prefill, greedy decode and evaluation through llama.cpp's C API.
#include "engine/llama_engine.hpp"

#include <llama.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <climits>
#include <fmt/format.h>

#include "engine/llama_backend.hpp"
#include "engine/thread_count.hpp"
#include "util/units.hpp"

namespace ecocompute::engine {
namespace {
using Clock = std::chrono::steady_clock;

Seconds since(Clock::time_point start) {
  return Seconds{std::chrono::duration<double>(Clock::now() - start).count()};
}

std::string with_llama_reason(std::string message) {
  const std::string reason = take_last_llama_error();
  if (!reason.empty()) message += " (llama.cpp: " + reason + ")";
  return message;
}

// llama_decode's documented return codes.
Error decode_error(int rc, std::int64_t position, const std::filesystem::path& model) {
  std::string what;
  if (rc == 1) {
    what = "no free KV-cache slot (context full)";
  } else if (rc == 2) {
    what = "aborted";
  } else if (rc == -1) {
    what = "invalid input batch";
  } else {
    what = "compute failed (out of memory or a backend error)";
  }
  return Error{ErrorCode::engine, with_llama_reason(fmt::format("llama_decode failed at position {} with code {}: {} [{}]",
                                                                position, rc, what, model.string()))};
}

// "CUDA0 (NVIDIA H200)", or "CUDA0 (NVIDIA H200) + CUDA1 (NVIDIA H200)" for a split.
std::string gpu_names(const std::vector<GpuDevice>& gpus) {
  std::string out;
  for (const GpuDevice& gpu : gpus) out += (out.empty() ? "" : " + ") + gpu.name + " (" + gpu.description + ")";
  return out;
}

// Every GPU named, each once, or the first visible GPU when none is named (none at all on a CPU-only
// build). A name no device has is an error: never silently another GPU, since the meter reads that one.
Result<std::vector<GpuDevice>> select_gpus(const std::vector<std::string>& wanted) {
  std::vector<GpuDevice> out;
  if (wanted.empty()) {
    auto first = select_gpu("");
    if (!first) return first.error();
    if (*first) out.push_back(**first);
    return out;
  }
  for (const std::string& name : wanted) {
    auto gpu = select_gpu(name);
    if (!gpu) return gpu.error();
    if (!*gpu) return unexpected(ErrorCode::not_found, "GPU '" + name + "' is not there");
    for (const GpuDevice& chosen : out) {
      if (chosen.handle == (*gpu)->handle) {
        return unexpected(ErrorCode::invalid_argument, "GPU '" + name + "' is named twice");
      }
    }
    out.push_back(**gpu);
  }
  return out;
}

llama_split_mode to_llama_split_mode(std::size_t n_gpus, SplitMode mode) {
  if (n_gpus < 2) return LLAMA_SPLIT_MODE_NONE;
  switch (mode) {
    case SplitMode::row: return LLAMA_SPLIT_MODE_ROW;
    case SplitMode::tensor: return LLAMA_SPLIT_MODE_TENSOR;
    case SplitMode::layer: break;
  }
  return LLAMA_SPLIT_MODE_LAYER;
}

// llama.cpp's row split needs its backend's split buffers; a backend without them makes the load fail
// deep inside llama.cpp, so it is refused here with what to use instead.
Result<void> check_row_split(const std::vector<GpuDevice>& gpus) {
  for (const GpuDevice& gpu : gpus) {
    ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(gpu.handle);
    if (reg == nullptr || ggml_backend_reg_get_proc_address(reg, "ggml_backend_split_buffer_type") == nullptr) {
      return unexpected(ErrorCode::unavailable,
                        fmt::format("--split-mode row: the {} backend of this llama.cpp build has no row split ({}); "
                                    "use layer or tensor",
                                    gpu.backend, gpu.name));
    }
  }
  return {};
}

}  // namespace

Token greedy_token(std::span<const float> logits) {
  // Two passes over the row (512 KB for a 128k vocabulary, cache-resident): a max reduction in 8
  // independent lanes the compiler turns into SIMD, then the first position holding that value. A
  // single std::max_element pass is scalar and costs ~2 % of a batch-1 decode step on a fast GPU.
  if (logits.empty()) return -1;
  constexpr std::size_t kLanes = 8;
  std::array<float, kLanes> lane;
  lane.fill(logits[0]);
  const std::size_t n = logits.size();
  const std::size_t blocked = n - n % kLanes;
  for (std::size_t i = 0; i < blocked; i += kLanes) {
    for (std::size_t k = 0; k < kLanes; ++k) lane[k] = logits[i + k] > lane[k] ? logits[i + k] : lane[k];
  }
  float best = lane[0];
  for (std::size_t k = 1; k < kLanes; ++k) best = lane[k] > best ? lane[k] : best;
  for (std::size_t i = blocked; i < n; ++i) best = logits[i] > best ? logits[i] : best;
  for (std::size_t i = 0; i < n; ++i) {
    if (logits[i] == best) return static_cast<Token>(i);
  }
  return static_cast<Token>(std::max_element(logits.begin(), logits.end()) - logits.begin());  // NaN logits only
}

Result<std::unique_ptr<LlamaEngine>> LlamaEngine::open(const LoadOptions& options) {
  auto inspection = inspect_gguf(options.model);
  if (!inspection) return inspection.error();
  if (options.n_ctx == 0 || options.n_batch == 0 || options.n_sequences == 0) {
    return unexpected(ErrorCode::invalid_argument, "n_ctx, n_batch and n_sequences must be positive");
  }
  auto gpus = select_gpus(options.device_uuids);
  if (!gpus) return gpus.error();
  ensure_llama_backend();

  std::unique_ptr<LlamaEngine> engine(new LlamaEngine());
  engine->options_ = options;
  engine->inspection_ = std::move(*inspection);
  if (options.n_gpu_layers != 0) engine->gpus_ = std::move(*gpus);
  const ModelInfo& info = engine->inspection_.model;

  // With every layer offloaded the weights alone must fit (over all the GPUs of a split); the KV cache
  // and compute buffers come on top and are checked by llama.cpp when the context is created.
  std::size_t free_bytes = 0;
  bool free_known = !engine->gpus_.empty();
  for (const GpuDevice& gpu : engine->gpus_) {
    free_bytes += gpu.memory_free_bytes;
    free_known = free_known && gpu.memory_free_bytes > 0;
  }
  if (free_known && options.n_gpu_layers < 0 && info.size_bytes > free_bytes) {
    return unexpected(ErrorCode::unavailable,
                      fmt::format("not enough GPU memory for {}: its weights need {:.2f} GiB, {} has {:.2f} GiB free",
                                  options.model.string(), static_cast<double>(info.size_bytes) / kBytesPerGiB,
                                  gpu_names(engine->gpus_), static_cast<double>(free_bytes) / kBytesPerGiB));
  }

  // An explicit, NULL-terminated device list: the chosen GPUs only, or none for a CPU run, so llama.cpp
  // never spreads layers over a GPU the meter is not reading.
  std::vector<ggml_backend_dev_t> devices;
  for (const GpuDevice& gpu : engine->gpus_) devices.push_back(gpu.handle);
  devices.push_back(nullptr);
  llama_model_params mparams = llama_model_default_params();
  mparams.devices = devices.data();
  mparams.split_mode = to_llama_split_mode(engine->gpus_.size(), options.split_mode);
  if (mparams.split_mode == LLAMA_SPLIT_MODE_ROW) {
    if (auto row = check_row_split(engine->gpus_); !row) return row.error();
  }
  if (mparams.split_mode == LLAMA_SPLIT_MODE_TENSOR && !options.flash_attention) {
    return unexpected(ErrorCode::invalid_argument, "the tensor split needs flash attention, which is switched off");
  }
  mparams.main_gpu = 0;
  mparams.n_gpu_layers = engine->gpus_.empty() ? 0 : options.n_gpu_layers;
  take_last_llama_error();
  engine->model_ = llama_model_load_from_file(options.model.c_str(), mparams);
  if (engine->model_ == nullptr) {
    return unexpected(ErrorCode::engine, with_llama_reason("llama.cpp could not load " + options.model.string() +
                                                           " (architecture " + info.architecture + ")"));
  }
  engine->vocab_ = llama_model_get_vocab(engine->model_);
  engine->n_vocab_ = llama_vocab_n_tokens(engine->vocab_);
  const int layers = llama_model_n_layer(engine->model_) + 1;  // repeating layers + the output layer
  engine->n_gpu_layers_ = engine->gpus_.empty() ? 0 : options.n_gpu_layers < 0 ? layers : std::min(options.n_gpu_layers, layers);

  engine->n_threads_ = options.n_threads > 0 ? options.n_threads : default_thread_count();
  llama_context_params cparams = llama_context_default_params();
  // One KV stream per sequence (llama.cpp's default, not unified): each holds n_ctx positions, so
  // the total is n_ctx × n_sequences; a decode step of B sequences needs B batch slots.
  cparams.n_ctx = options.n_ctx * options.n_sequences;
  cparams.n_batch = std::max(options.n_batch, options.n_sequences);
  cparams.n_ubatch = std::min<std::uint32_t>(cparams.n_batch, 512);
  cparams.n_seq_max = options.n_sequences;
  cparams.n_threads = engine->n_threads_;
  cparams.n_threads_batch = engine->n_threads_;
  cparams.flash_attn_type = options.flash_attention ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
  cparams.no_perf = true;
  engine->ctx_ = llama_init_from_model(engine->model_, cparams);
  if (engine->ctx_ == nullptr) {
    return unexpected(ErrorCode::engine,
                      with_llama_reason(fmt::format("cannot create a llama.cpp context for {} (n_ctx {}, n_batch {}): "
                                                    "out of memory or unsupported parameters",
                                                    options.model.string(), options.n_ctx, options.n_batch)));
  }
  engine->n_ctx_ = llama_n_ctx_seq(engine->ctx_);
  engine->n_seq_max_ = llama_n_seq_max(engine->ctx_);
  engine->n_batch_ = llama_n_batch(engine->ctx_);

  const std::size_t capacity = std::max(engine->n_batch_, engine->n_seq_max_);
  engine->batch_tokens_.resize(capacity);
  engine->batch_pos_.resize(capacity);
  engine->batch_logits_.resize(capacity);
  engine->batch_n_seq_.assign(capacity, 1);
  engine->seq_ids_.resize(engine->n_seq_max_);
  for (std::uint32_t s = 0; s < engine->n_seq_max_; ++s) engine->seq_ids_[s] = static_cast<std::int32_t>(s);
  engine->batch_seq_.assign(capacity, engine->seq_ids_.data());
  engine->token_choice_ = options.token_choice;
  engine->attach_samplers();
  return engine;
}

LlamaEngine::~LlamaEngine() {
  if (ctx_ != nullptr) llama_free(ctx_);
  // The context refers to the samplers until it is freed.
  for (llama_sampler* sampler : samplers_) llama_sampler_free(sampler);
  if (model_ != nullptr) llama_model_free(model_);
}

EngineDescription LlamaEngine::describe() const {
  const LlamaBuildInfo build = llama_build_info();
  EngineDescription d;
  d.name = build.engine;
  d.version = build.version;
  d.commit = build.commit;
  const bool on_gpu = !gpus_.empty() && n_gpu_layers_ > 0;
  d.backend = on_gpu ? gpus_.front().backend : "CPU";
  d.device = on_gpu ? gpu_names(gpus_) : "CPU";
  if (on_gpu && gpus_.size() > 1) d.device += fmt::format(", {} split", to_string(options_.split_mode));
  d.n_gpu_layers = n_gpu_layers_;
  d.n_ctx = n_ctx_;
  d.n_batch = n_batch_;
  d.n_threads = n_threads_;
  d.flash_attention = options_.flash_attention;
  d.token_choice = std::string(to_string(token_choice_));
  d.token_choice_note = token_choice_note_;
  return d;
}

Result<std::vector<Token>> LlamaEngine::tokenize(std::string_view text, bool add_bos) const {
  if (text.size() > static_cast<std::size_t>(INT32_MAX)) {
    return unexpected(ErrorCode::invalid_argument, "text too long to tokenize (" + std::to_string(text.size()) + " bytes)");
  }
  const auto length = static_cast<std::int32_t>(text.size());
  std::vector<Token> tokens(text.size() + 2);
  // add_special=false and parse_special=false: BOS is our explicit choice below, and control-token
  // spellings in the text stay plain text.
  std::int32_t n = llama_tokenize(vocab_, text.data(), length, tokens.data(), static_cast<std::int32_t>(tokens.size()),
                                  false, false);
  if (n < 0) {
    tokens.resize(static_cast<std::size_t>(-n));
    n = llama_tokenize(vocab_, text.data(), length, tokens.data(), static_cast<std::int32_t>(tokens.size()), false, false);
  }
  if (n < 0) return unexpected(ErrorCode::engine, "llama_tokenize failed for " + options_.model.string());
  tokens.resize(static_cast<std::size_t>(n));
  if (add_bos && bos() >= 0) tokens.insert(tokens.begin(), bos());
  return tokens;
}

Token LlamaEngine::bos() const {
  const llama_token token = llama_vocab_bos(vocab_);
  return token == LLAMA_TOKEN_NULL ? -1 : token;
}

Result<void> LlamaEngine::reset() {
  llama_memory_clear(llama_get_memory(ctx_), true);
  n_past_ = 0;
  n_sequences_ = 1;
  has_logits_ = false;
  generated_.clear();
  return {};
}

Result<void> LlamaEngine::check_room(std::int64_t n_more, const char* what) const {
  if (n_past_ + n_more > static_cast<std::int64_t>(n_ctx_)) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("context overflow: {} of {} tokens needs {} positions but the context holds {} ({} in use)",
                                  what, n_more, n_past_ + n_more, n_ctx_, n_past_));
  }
  return {};
}

Result<void> LlamaEngine::feed(std::span<const Token> tokens, bool all_logits, const LogitsSink* sink) {
  const std::int64_t first = n_past_;
  for (std::size_t begin = 0; begin < tokens.size(); begin += n_batch_) {
    if (interrupted()) {
      has_logits_ = false;
      return interrupted_error("the prompt");
    }
    const std::size_t n = std::min<std::size_t>(n_batch_, tokens.size() - begin);
    const bool last_chunk = begin + n == tokens.size();
    std::fill_n(batch_seq_.begin(), n, seq_ids_.data());  // every prompt token belongs to sequence 0
    for (std::size_t i = 0; i < n; ++i) {
      const Token t = tokens[begin + i];
      if (t < 0 || t >= n_vocab_) {
        return unexpected(ErrorCode::invalid_argument,
                          fmt::format("token id {} at index {} is outside the vocabulary (0..{})", t, begin + i, n_vocab_ - 1));
      }
      batch_tokens_[i] = t;
      batch_pos_[i] = static_cast<std::int32_t>(n_past_ + static_cast<std::int64_t>(i));
      batch_logits_[i] = static_cast<std::int8_t>(all_logits || (last_chunk && i + 1 == n));
    }
    llama_batch batch{};
    batch.n_tokens = static_cast<std::int32_t>(n);
    batch.token = batch_tokens_.data();
    batch.pos = batch_pos_.data();
    batch.n_seq_id = batch_n_seq_.data();
    batch.seq_id = batch_seq_.data();
    batch.logits = batch_logits_.data();
    const int rc = llama_decode(ctx_, batch);
    if (rc != 0) return decode_error(rc, n_past_, options_.model);
    n_past_ += static_cast<std::int64_t>(n);
    if (sink != nullptr) {
      for (std::size_t i = 0; i < n; ++i) {
        const float* logits = llama_get_logits_ith(ctx_, static_cast<std::int32_t>(i));
        if (logits == nullptr) return unexpected(ErrorCode::engine, "llama.cpp returned no logits for position " + std::to_string(i));
        (*sink)(n_past_ - first - static_cast<std::int64_t>(n) + static_cast<std::int64_t>(i),
                std::span<const float>(logits, static_cast<std::size_t>(n_vocab_)));
      }
    }
  }
  has_logits_ = !tokens.empty();
  return {};
}

Result<WorkStats> LlamaEngine::prefill(std::span<const Token> tokens) { return prefill_sequences(tokens, 1); }

Result<WorkStats> LlamaEngine::prefill_sequences(std::span<const Token> tokens, int n_sequences) {
  if (tokens.empty()) return unexpected(ErrorCode::invalid_argument, "prefill of an empty prompt");
  if (n_sequences < 1 || static_cast<std::uint32_t>(n_sequences) > n_seq_max_) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("{} parallel sequences asked for, the context was made for 1 … {}", n_sequences, n_seq_max_));
  }
  if (n_sequences > 1 && n_past_ > 0) {
    return unexpected(ErrorCode::invalid_argument, "parallel sequences start from an empty context (reset first)");
  }
  if (auto room = check_room(static_cast<std::int64_t>(tokens.size()), "a prefill"); !room) return room.error();
  attach_samplers();  // after an evaluation took them out (outside any measured window's work)
  const auto start = Clock::now();
  if (auto fed = feed(tokens, false, nullptr); !fed) return fed.error();
  // The prompt is computed once, in sequence 0, and its KV cells copied to the others: the same
  // context in every sequence without computing it B times.
  llama_memory_t memory = llama_get_memory(ctx_);
  for (int s = 1; s < n_sequences; ++s) llama_memory_seq_cp(memory, 0, s, -1, -1);
  n_sequences_ = n_sequences;
  llama_synchronize(ctx_);
  return WorkStats{static_cast<std::int64_t>(tokens.size()), since(start)};
}

Result<WorkStats> LlamaEngine::decode(std::int64_t n_tokens) {
  if (n_tokens < 0) return unexpected(ErrorCode::invalid_argument, "decode of a negative token count");
  if (!has_logits_) return unexpected(ErrorCode::invalid_argument, "decode needs a prefill first (no logits to pick from)");
  if (auto room = check_room(n_tokens, "a decode"); !room) return room.error();
  const auto n_seq = static_cast<std::size_t>(n_sequences_);
  generated_.assign(n_seq, {});
  for (auto& tokens : generated_) tokens.reserve(static_cast<std::size_t>(n_tokens));
  llama_batch batch{};
  batch.n_tokens = static_cast<std::int32_t>(n_seq);
  batch.token = batch_tokens_.data();
  batch.pos = batch_pos_.data();
  batch.n_seq_id = batch_n_seq_.data();
  batch.seq_id = batch_seq_.data();
  batch.logits = batch_logits_.data();
  for (std::size_t s = 0; s < n_seq; ++s) {
    batch_logits_[s] = 1;
    batch_seq_[s] = &seq_ids_[s];
  }

  // Per step: each sequence's greedy choice from the last step (chosen_token waits for it: in the
  // compute graph, or by the host's search over the logits row), then one llama_decode of one token
  // per sequence. Right after the prefill every sequence takes the prompt's last output (-1);
  // afterwards sequence s takes batch output s.
  const auto start = Clock::now();
  for (std::int64_t i = 0; i < n_tokens; ++i) {
    if (interrupted()) {
      llama_synchronize(ctx_);
      return interrupted_error("decode");
    }
    for (std::size_t s = 0; s < n_seq; ++s) {
      const Result<Token> next = chosen_token(i == 0 ? -1 : static_cast<std::int32_t>(s));
      if (!next) {
        has_logits_ = false;
        return next.error();
      }
      generated_[s].push_back(*next);
      batch_tokens_[s] = *next;
      batch_pos_[s] = static_cast<std::int32_t>(n_past_);
    }
    const int rc = llama_decode(ctx_, batch);
    if (rc != 0) {
      has_logits_ = false;
      return decode_error(rc, n_past_, options_.model);
    }
    ++n_past_;
  }
  llama_synchronize(ctx_);
  return WorkStats{n_tokens * static_cast<std::int64_t>(n_seq), since(start)};
}

std::span<const Token> LlamaEngine::sequence_generated(int sequence) const {
  if (sequence < 0 || static_cast<std::size_t>(sequence) >= generated_.size()) return {};
  return generated_[static_cast<std::size_t>(sequence)];
}

Result<void> LlamaEngine::evaluate(std::span<const Token> tokens, const LogitsSink& sink) {
  if (auto cleared = reset(); !cleared) return cleared;
  detach_samplers();  // every position's logits must reach the sink
  if (auto room = check_room(static_cast<std::int64_t>(tokens.size()), "an evaluation"); !room) return room.error();
  return feed(tokens, true, &sink);
}

void LlamaEngine::synchronize() { llama_synchronize(ctx_); }

Result<std::unique_ptr<Engine>> open_llama_engine(const LoadOptions& options) {
  auto engine = LlamaEngine::open(options);
  if (!engine) return engine.error();
  return std::unique_ptr<Engine>(std::move(*engine));
}

}  // namespace ecocompute::engine
