// A fixed, hand-computable RunResult (F16 baseline, Q8_0 with one failed trial, Q4_K_M; 3 blocks)
// and its ReportContext, shared by the report-building tests; the reports built from them are the golden
// files under tests/golden/energy/, which the report module's tests read.
//
// Decode windows: 10 iterations × 256 tokens = 2560 tokens per trial.
//   F16:    3000, 3030, 2970 J → 1171.875, 1183.59375, 1160.15625 mJ/token (mean 1171.875)
//   Q8_0:   0.90 × 3000 = 2700 J, failed (engine_failed), 0.94 × 2970 = 2791.8 J → ΔE −10 %, −6 %
//   Q4_K_M: 0.70 × 3000 = 2100 J, 0.72 × 3030 = 2181.6 J, 0.68 × 2970 = 2019.6 J → ΔE −30, −28, −32 %
// Durations: F16 16 s, Q8_0 12.8 s, Q4_K_M 10 s (160, 200, 256 tok/s). Idle power 100 W.
// Prefill windows: 100 × 11 prompt tokens = 1100 tokens, 2 s, 400 J for every trial.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "protocol/run_result.hpp"
#include "experiment/report_context.hpp"
#include "util/file_io.hpp"

namespace ecocompute::experiment::testing {

inline protocol::WindowResult make_window(protocol::WindowKind kind, double energy_j, double duration_s,
                                          std::int64_t tokens, std::int64_t repeats, bool with_energy) {
  protocol::WindowResult w;
  w.kind = kind;
  w.repeats = repeats;
  w.tokens = tokens;
  w.engine_time = Seconds{duration_s * 0.99};
  meter::Measurement& m = w.measurement;
  m.label = kind == protocol::WindowKind::decode ? "decode" : "prefill";
  m.duration = Seconds{duration_s};
  m.achieved_sample_rate_hz = 50.0;
  if (with_energy) {
    m.source = "nvml-energy-counter";
    m.device = "NVIDIA H200 GPU-11111111-2222-3333-4444-555555555555";
    m.status = meter::WindowStatus::valid;
    m.energy = Joules{energy_j};
    m.edge_uncertainty = Joules{energy_j / duration_s * 0.1 * 2};  // P × 0.1 s per edge, two edges
    m.counter_update_period = Seconds{0.1};
    m.trace_energy = Joules{energy_j * 1.002};
    m.trace_vs_counter_pct = 0.2;
    w.energy_gross = Joules{energy_j};
    w.energy_idle = Joules{100.0 * duration_s};
    w.energy_net = Joules{energy_j - 100.0 * duration_s};
  } else {
    m.source = "none";
    m.device = "none";
    m.status = meter::WindowStatus::unavailable;
    m.invalid_reason = "no energy source";
  }
  return w;
}

/// Builds the sample run; `with_energy` false gives the same run on a machine without an energy source.
inline protocol::RunResult sample_run(bool with_energy = true) {
  using protocol::TrialStatus;
  protocol::RunResult run;
  run.design.model = "/models/tiny-F16.gguf";
  run.design.baseline = "F16";
  run.design.candidates = {"Q8_0", "Q4_K_M"};
  run.design.trials = 3;
  run.design.seed = 42;
  run.conditions = run.design.expand();
  run.schedule = protocol::Schedule::make(run.conditions, 3, protocol::ScheduleOrder::alternating, 42);

  const char* types[] = {"F16", "Q8_0", "Q4_K_M"};
  const char* classes[] = {"16-bit", "8-bit", "4-bit"};
  const double bpw[] = {16.0, 8.5, 4.89};
  for (std::size_t c = 0; c < 3; ++c) {
    protocol::ConditionSetup setup;
    setup.condition = c;
    setup.precision = types[c];
    setup.loaded = true;
    engine::ModelInfo model;
    model.path = std::string("/models/tiny-") + types[c] + ".gguf";
    model.name = "tiny-llama";
    model.architecture = "llama";
    model.gguf_type = types[c];
    model.precision_class = classes[c];
    model.bits_per_weight = bpw[c];
    model.n_params = 4000000;
    model.size_bytes = static_cast<std::uint64_t>(4000000 * bpw[c] / 8);
    model.n_vocab = 2048;
    setup.model = model;
    engine::EngineDescription engine;
    engine.name = "llama.cpp";
    engine.version = "v0.4.0";
    engine.commit = "80fb11ac73e66d89eae2c6a91d8a77428fa733ed+PR-22566.diff";
    engine.backend = "CUDA";
    engine.device = "CUDA0 (NVIDIA H200)";
    engine.n_gpu_layers = 99;
    engine.n_ctx = 4096;
    engine.n_batch = 2048;
    engine.n_threads = 16;
    setup.engine = engine;
    setup.prompt_token_count = 11;
    setup.prefill_repeats = 100;
    run.setups.push_back(setup);
  }

  protocol::IterationDecision decision;
  decision.requested_iterations = 10;
  decision.iterations = 10;
  decision.tokens_per_iteration = 256;
  decision.counter_update_period = Seconds{0.1};
  decision.update_period_measured = true;
  decision.required_decode_window = Seconds{20.0};
  decision.explanation = "10 iterations as requested.";
  run.iteration_decisions.push_back(decision);

  const double base_energy[] = {3000.0, 3030.0, 2970.0};
  const double ratio[3][3] = {{1.0, 1.0, 1.0}, {0.90, 0.0, 0.94}, {0.70, 0.72, 0.68}};
  const double duration[] = {16.0, 12.8, 10.0};
  for (const protocol::ScheduledTrial& s : run.schedule.trials) {
    protocol::TrialResult t;
    t.index = s.index;
    t.condition = s.condition;
    t.precision = types[s.condition];
    t.repetition = s.repetition;
    t.block = s.block;
    t.started_utc = "2026-11-29T17:00:00Z";
    t.prefill = make_window(protocol::WindowKind::prefill, 400.0, 2.0, 1100, 100, with_energy);
    if (s.condition == 1 && s.block == 1) {
      t.status = TrialStatus::engine_failed;
      t.reason = "decode failed: out of memory";
    } else {
      t.status = TrialStatus::ok;
      t.decode = make_window(protocol::WindowKind::decode, base_energy[s.block] * ratio[s.condition][s.block],
                             duration[s.condition], 2560, 10, with_energy);
    }
    run.trials.push_back(t);
  }
  if (with_energy) run.idle.power = Watts{100.0};
  else run.idle.failure = "no energy source";
  run.summaries = protocol::summarize_conditions(run.conditions, run.trials);
  run.comparisons = protocol::compare_paired(run.conditions, run.trials);
  run.meter_source = with_energy ? "nvml-energy-counter" : "none";
  run.meter_device = with_energy ? "NVIDIA H200 GPU-11111111-2222-3333-4444-555555555555" : "none";
  run.meter_measures_energy = with_energy;
  run.started_utc = "2026-11-29T17:00:00Z";
  run.finished_utc = "2026-11-29T17:09:30Z";
  return run;
}

inline quality::QualityResult sample_quality(const char* precision, double ppl, double delta_pct, double delta_se,
                                             std::optional<double> kld, double top1) {
  quality::QualityResult q;
  q.precision = precision;
  q.baseline = "F16";
  q.corpus = {"kjv-genesis.txt", 200000, sha256_hex("corpus")};
  q.policy = {512, 256, true};
  q.tokens_evaluated = 40000;
  q.windows = 157;
  q.mean_nll = std::log(ppl);
  q.perplexity = {ppl, ppl * 0.01};
  q.baseline_mean_nll = std::log(20.0);
  q.baseline_perplexity = {20.0, 0.2};
  q.delta_ppl_pct = {delta_pct, delta_se};
  if (kld) {
    q.kld = quality::Estimate{*kld, *kld / 10};
    q.kld_p99 = *kld * 8;
    q.top1_agreement_pct = quality::Estimate{top1, 0.1};
  }
  return q;
}

/// The context of the sample run: fixed identity, an H200, trained-fixture weights, quality for all three.
inline ReportContext sample_context(bool with_gpu = true) {
  ReportContext context;
  context.run_id = "20261129T170000Z";
  context.host = "Linux-6.1.0-18-amd64-x86_64";
  context.cpu = "Test CPU @ 2.0GHz";
  if (with_gpu) {
    context.sources.nvml_available = true;
    context.sources.driver_version = "570.86.15";
    context.sources.cuda_driver_version = "12.8";
    meter::GpuInfo gpu;
    gpu.name = "NVIDIA H200";
    gpu.uuid = "GPU-11111111-2222-3333-4444-555555555555";
    gpu.arch = "hopper";
    gpu.vbios = "96.00.99.00.01";
    gpu.power_limit = Watts{700.0};
    gpu.ecc_enabled = true;
    context.sources.gpu = gpu;
  }
  context.weights = report::WeightsKind::trained_fixture;
  for (const char* p : {"F16", "Q8_0", "Q4_K_M"}) context.model_sha256[p] = sha256_hex(p);
  context.quality = {sample_quality("F16", 20.0, 0.0, 0.0, std::nullopt, 100.0),
                     sample_quality("Q8_0", 20.1, 0.5, 0.05, 0.001, 99.0),
                     sample_quality("Q4_K_M", 21.0, 5.0, 0.2, 0.02, 95.0)};
  context.ecocompute_version = "0.1.0";
  context.ecocompute_commit = "0123456789ab";
  context.compiler = "GNU 12.2.0";
  return context;
}

}  // namespace ecocompute::experiment::testing
