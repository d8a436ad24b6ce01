// Every default a user meets, in one place: the CLI's flags, the API (its handlers and the served
// /openapi.json), the MCP tools' schemas and plan, and docs/defaults.md (checked against this file by
// tests/unit/util/defaults_test.cpp) all read these.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace ecocompute::defaults {

// A measurement (`ecocompute measure`, protocol::Design, the MCP plan_measurement tool). They follow
// the published protocol (batch 1, 256 tokens × 10 iterations, 2 warm-ups) and extend it.
inline constexpr std::string_view baseline = "F16";
inline constexpr std::array<std::string_view, 2> candidates{"Q8_0", "Q4_K_M"};
inline constexpr int trials = 3;                       ///< k per precision, interleaved with the baseline
inline constexpr int warmups = 2;                      ///< unmeasured iterations per precision after loading
inline constexpr int trial_warmup_iterations = 1;      ///< unmeasured iterations right before each trial
inline constexpr std::string_view trial_warmup = "every";  ///< `--trial-warmup`: before every trial, or on a change
inline constexpr std::string_view prefill_windows = "every-batch";  ///< `--prefill-windows`: or "first-batch"
inline constexpr std::int64_t level_warmup_tokens = 16;   ///< `--level-warmup-tokens`: steps at a new batch
inline constexpr std::string_view token_choice = "device";  ///< `--token-choice`: greedy choice in the graph
inline constexpr std::int64_t tokens_per_iteration = 256;   ///< per sequence
inline constexpr std::array<int, 1> measure_batches{1};    ///< `measure --batch`: parallel sequences per decode step
inline constexpr int max_measure_batch = 512;
inline constexpr int iterations = 10;                  ///< a minimum; extended to min_window_s
inline constexpr double min_window_s = 20.0;           ///< keeps the counter-edge error ≤ 0.5 % at a 0.1-s update period
inline constexpr double min_prefill_window_s = 20.0;
inline constexpr double max_edge_error_pct = 0.5;
inline constexpr double min_gpu_busy_pct = 90.0;       ///< a decode window's GPU busy share below this: host-paced
inline constexpr int min_trials = 3;                    ///< `--min-trials`: blocks before the `--target-ci` rule may stop
inline constexpr double ci_confidence = 0.95;           ///< every confidence interval the tool reports
inline constexpr std::string_view edges = "counter";   ///< `--edges`: plain counter difference (or "corrected")
inline constexpr double assumed_counter_update_period_s = 0.1;  ///< H200: ~100 ms, when the meter did not measure it
inline constexpr double idle_window_s = 10.0;
inline constexpr std::string_view schedule_order = "alternating";
inline constexpr std::string_view out_dir = "ecocompute-out";

// Serving (`ecocompute measure-endpoint`): a closed loop of C requests against an OpenAI-compatible server.
inline constexpr std::array<int, 7> serving_concurrency{1, 2, 4, 8, 16, 32, 64};  ///< `--concurrency` levels
inline constexpr int serving_requests = 64;             ///< `--n-requests`: the drawn request set
inline constexpr std::string_view serving_prompt_words = "16-128";    ///< `--prompt-words`, uniform
inline constexpr std::string_view serving_output_tokens = "32-128";   ///< `--output-tokens` (max_tokens), uniform
inline constexpr int serving_requests_per_stream = 4;   ///< a trial sends max(set size, this × C) requests
inline constexpr int serving_warmup_requests = 2;       ///< unmetered requests before every trial
inline constexpr int serving_level_warmup_trials = 1;  ///< `--level-warmup`: unmetered trials at C before a level
/// A steady-state window lasts as long as the load holds, seconds at high concurrency: too short for
/// plain counter edges (0.1-s updates), so each edge is corrected from the power trace.
inline constexpr std::string_view serving_edges = "corrected";
inline constexpr std::string_view serving_out_dir = "ecocompute-serving";

// The decision layer (`estimate`, `optimize`, `check`; GET|POST /v1/estimate, /v1/optimize; MCP).
inline constexpr std::string_view estimate_precision = "NF4";
inline constexpr int batch = 1;
inline constexpr int context = 2048;
/// The baseline context: the stored rows are decode up to it (the published convention), and the
/// decision layer answers contexts up to it as measured; beyond it the KV cache's share is modelled.
inline constexpr int baseline_context = 2048;
inline constexpr std::array<std::string_view, 3> optimize_precisions{"FP16", "NF4", "INT8"};
inline constexpr std::array<int, 6> optimize_batches{1, 2, 4, 8, 16, 32};         ///< the published grid
inline constexpr std::array<int, 5> optimize_contexts{512, 1024, 2048, 4096, 8192};
inline constexpr double check_band_k = 2.0;           ///< `check --rules published`: the published checker's band half-width in residual SDs

}  // namespace ecocompute::defaults
