// Decode throughput of LlamaEngine against a bare llama.cpp decode loop on the same GGUF file.
//
// The tool's figures are only as good as its engine path: its decode tok/s should be within 1 % of
// the plainest loop llama.cpp allows. Both loops do, per token, one argmax over the last logits
// (engine::greedy_token) and one llama_decode of that token; prefill is outside the timed region.
// Benchmarks alternate bare / engine, three times each, so drift (clocks, temperature) hits both.
//
//   ECOCOMPUTE_BENCH_MODEL=/path/model.gguf  (required; without it nothing runs and the program exits 0)
//   ECOCOMPUTE_BENCH_TOKENS=256              tokens decoded per iteration
//   ECOCOMPUTE_BENCH_ITERATIONS=10           timed iterations per benchmark
//   ECOCOMPUTE_BENCH_NGL=-1                  layers on the GPU (-1: all)
//   ECOCOMPUTE_BENCH_THREADS=0               CPU threads (0: all hardware threads)
#include <benchmark/benchmark.h>
#include <llama.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "engine/llama_backend.hpp"
#include "engine/llama_engine.hpp"

namespace {
using ecocompute::engine::Token;

struct Settings {
  std::string model;
  int tokens = 256;
  int iterations = 10;
  int n_gpu_layers = -1;
  int n_threads = 0;
  std::uint32_t n_ctx = 4096;
  std::uint32_t n_batch = 2048;
};

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

Settings read_settings() {
  Settings s;
  if (const char* m = std::getenv("ECOCOMPUTE_BENCH_MODEL"); m != nullptr) s.model = m;
  s.tokens = env_int("ECOCOMPUTE_BENCH_TOKENS", s.tokens);
  s.iterations = env_int("ECOCOMPUTE_BENCH_ITERATIONS", s.iterations);
  s.n_gpu_layers = env_int("ECOCOMPUTE_BENCH_NGL", s.n_gpu_layers);
  s.n_threads = env_int("ECOCOMPUTE_BENCH_THREADS", 0);
  if (s.n_threads <= 0) s.n_threads = static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  return s;
}

// The same fixed prompt for both loops: BOS and 31 ordinary token ids.
std::vector<llama_token> prompt_tokens(const llama_vocab* vocab) {
  std::vector<llama_token> tokens;
  const llama_token bos = llama_vocab_bos(vocab);
  tokens.push_back(bos == LLAMA_TOKEN_NULL ? 1 : bos);
  for (llama_token t = 1000; tokens.size() < 32; ++t) tokens.push_back(t);
  return tokens;
}

// The bare loop: llama.cpp's defaults except what both loops must share (layers, context, batch,
// flash attention, threads), llama_batch_get_one for every call.
void bare_llama_decode(benchmark::State& state, const Settings& s) {
  ecocompute::engine::ensure_llama_backend();
  llama_model_params mparams = llama_model_default_params();
  mparams.n_gpu_layers = s.n_gpu_layers;
  llama_model* model = llama_model_load_from_file(s.model.c_str(), mparams);
  if (model == nullptr) {
    state.SkipWithError("llama.cpp could not load the model");
    return;
  }
  llama_context_params cparams = llama_context_default_params();
  cparams.n_ctx = s.n_ctx;
  cparams.n_batch = s.n_batch;
  cparams.n_ubatch = std::min<std::uint32_t>(s.n_batch, 512);
  cparams.n_seq_max = 1;
  cparams.n_threads = s.n_threads;
  cparams.n_threads_batch = s.n_threads;
  cparams.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_ENABLED;
  cparams.no_perf = true;
  llama_context* ctx = llama_init_from_model(model, cparams);
  if (ctx == nullptr) {
    llama_model_free(model);
    state.SkipWithError("cannot create the context");
    return;
  }
  const llama_vocab* vocab = llama_model_get_vocab(model);
  const auto n_vocab = static_cast<std::size_t>(llama_vocab_n_tokens(vocab));
  std::vector<llama_token> prompt = prompt_tokens(vocab);
  for (auto _ : state) {
    state.PauseTiming();
    llama_memory_clear(llama_get_memory(ctx), true);
    if (llama_decode(ctx, llama_batch_get_one(prompt.data(), static_cast<std::int32_t>(prompt.size()))) != 0) {
      state.SkipWithError("prefill failed");
      break;
    }
    llama_synchronize(ctx);
    state.ResumeTiming();
    for (int i = 0; i < s.tokens; ++i) {
      llama_token next = ecocompute::engine::greedy_token(std::span<const float>(llama_get_logits_ith(ctx, -1), n_vocab));
      if (llama_decode(ctx, llama_batch_get_one(&next, 1)) != 0) {
        state.SkipWithError("decode failed");
        break;
      }
    }
    llama_synchronize(ctx);
  }
  state.counters["tokens_per_s"] =
      benchmark::Counter(static_cast<double>(s.tokens) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  llama_free(ctx);
  llama_model_free(model);
}

void engine_decode(benchmark::State& state, const Settings& s) {
  ecocompute::engine::LoadOptions options;
  options.model = s.model;
  options.n_gpu_layers = s.n_gpu_layers;
  options.n_ctx = s.n_ctx;
  options.n_batch = s.n_batch;
  options.n_threads = s.n_threads;
  auto engine = ecocompute::engine::LlamaEngine::open(options);
  if (!engine) {
    state.SkipWithError(engine.error().describe().c_str());
    return;
  }
  std::vector<Token> prompt;
  {
    // The same ids as the bare loop: BOS, then 1000, 1001, …
    prompt.push_back((*engine)->bos() >= 0 ? (*engine)->bos() : 1);
    for (Token t = 1000; prompt.size() < 32; ++t) prompt.push_back(t);
  }
  for (auto _ : state) {
    state.PauseTiming();
    (void)(*engine)->reset();
    if (auto filled = (*engine)->prefill(prompt); !filled) {
      state.SkipWithError(filled.error().describe().c_str());
      break;
    }
    state.ResumeTiming();
    if (auto decoded = (*engine)->decode(s.tokens); !decoded) {
      state.SkipWithError(decoded.error().describe().c_str());
      break;
    }
  }
  state.counters["tokens_per_s"] =
      benchmark::Counter(static_cast<double>(s.tokens) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  const auto d = (*engine)->describe();
  state.SetLabel(d.backend + " " + d.device + " ngl=" + std::to_string(d.n_gpu_layers));
}
}  // namespace

int main(int argc, char** argv) {
  const Settings settings = read_settings();
  if (settings.model.empty()) {
    std::fprintf(stderr, "decode_loop_bench: skipped (set ECOCOMPUTE_BENCH_MODEL to a GGUF file)\n");
    return 0;
  }
  for (int rep = 1; rep <= 3; ++rep) {
    const std::string suffix = "/rep:" + std::to_string(rep);
    benchmark::RegisterBenchmark(("bare_llama_decode" + suffix).c_str(),
                                 [settings](benchmark::State& st) { bare_llama_decode(st, settings); })
        ->Iterations(settings.iterations)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark(("engine_decode" + suffix).c_str(),
                                 [settings](benchmark::State& st) { engine_decode(st, settings); })
        ->Iterations(settings.iterations)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
