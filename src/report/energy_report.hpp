// EnergyReport: one energy.json as plain data. A 1.2 report (what `measure` writes) fills every
// section; a published 1.0/1.1 report fills the 1.1 fields and leaves the rest absent. Every reader of
// reports (printers, the verdict table, check, compare, the dataset import, the server's upload rules)
// reads these fields; only the field table (report/energy_fields.hpp) knows the JSON names.
//
//   auto report = report::read_energy_report("energy-Q4_K_M.json");   // 1.0, 1.1 or 1.2
//   if (report && report->results.vs_fp16_energy_pct) ...
//   report::write_energy_report(path, *report);                     // validated, then written atomically
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::report {

/// The schema_version of the reports this build writes, and those it reads.
inline constexpr std::string_view energy_schema_1_0 = "ecocompute-energy/1.0";
inline constexpr std::string_view energy_schema_1_1 = "ecocompute-energy/1.1";
inline constexpr std::string_view energy_schema_version = "ecocompute-energy/1.2";

/// Where the measured weights come from; synthetic weights make quality meaningless.
enum class WeightsKind { synthetic, trained_fixture, real };

/// Returns "synthetic", "trained-fixture" or "real".
[[nodiscard]] std::string_view to_string(WeightsKind kind) noexcept;
/// Parses the spellings above; anything else is an invalid_argument error naming the text.
[[nodiscard]] Result<WeightsKind> parse_weights_kind(std::string_view text);

/// What results.basis says the energy figures are.
enum class ResultBasis { measured, interpolated, extrapolated, unavailable };

/// Returns "measured", "interpolated", "extrapolated" or "unavailable".
[[nodiscard]] std::string_view to_string(ResultBasis basis) noexcept;
/// Parses the spellings above; anything else is an invalid_argument error naming the text.
[[nodiscard]] Result<ResultBasis> parse_result_basis(std::string_view text);

/// Who wrote the report. 1.2: this tool, its version and commit, the run; 1.1: the tool's address.
struct Provenance {
  std::string tool;
  std::optional<std::string> ecocompute_version;
  std::optional<std::string> ecocompute_commit;
  std::optional<std::string> run_id;
  std::optional<std::string> code;
};

struct SystemUnderTest {
  std::string gpu;                    ///< "NVIDIA H200", or "none" for a run without a GPU
  std::string gpu_arch;               ///< "hopper", "ada" … or "none"
  int accelerator_count = 0;
  std::optional<std::string> host;
  std::optional<std::string> cpu;
};

/// The engine dimension (1.2).
struct EngineSection {
  std::string name;                   ///< "llama.cpp"
  std::string version;
  std::string commit;
  std::string backend;                ///< "CUDA", "CPU" …
  std::string device;
  int n_gpu_layers = 0;
  std::uint32_t n_ctx = 0;
  std::uint32_t n_batch = 0;
  std::optional<int> n_threads;
  bool flash_attention = false;
  /// Where the greedy choice of the next token ran: "device" (in the compute graph) or "host" (logits
  /// rows searched on the CPU). Absent in reports made before the choice was recorded: "host".
  std::optional<std::string> token_choice;
  std::optional<std::string> token_choice_note;  ///< why "host" where "device" was asked for
};

struct Workload {
  std::string model_name;
  std::optional<double> params_b;
  std::string precision;              ///< 1.1: FP16 / NF4 / INT8; 1.2: a GGUF type
  int batch_size = 1;
  /// Server scenario: requests kept in flight by the closed loop (the server batches them itself).
  std::optional<int> concurrency;
  std::optional<std::int64_t> context_length;
  std::optional<WeightsKind> weights;
  std::optional<std::string> gguf_type;
  std::optional<std::string> precision_class;
  std::optional<double> bits_per_weight;  ///< measured from the file: tensor bytes × 8 / parameters
  std::optional<std::string> model_sha256;
  std::optional<std::int64_t> prompt_tokens;
  std::optional<std::string> decoding;
  std::optional<std::string> architecture;
  std::optional<std::string> model_file;
  std::optional<std::uint64_t> model_size_bytes;
  std::optional<std::uint64_t> n_params;

  /// The level the load was measured at: a Server report's concurrency, else the batch size (the
  /// store's batch dimension).
  [[nodiscard]] int load_level() const noexcept { return concurrency.value_or(batch_size); }
};

struct MeasurementSection {
  std::string method;
  std::optional<std::int64_t> sample_rate_hz;
  std::optional<std::int64_t> tokens_per_run;
  std::optional<std::int64_t> iterations;
  std::optional<std::int64_t> warmup;
  std::optional<std::string> iterations_note;
  std::optional<std::string> window;            ///< 1.2: "decode", or "steady-state" (Server)
  std::optional<std::string> baseline_precision;
  std::optional<int> trials_per_precision;
  std::optional<std::string> schedule;
  std::optional<std::string> seed;              ///< decimal text: 64-bit seeds exceed JavaScript numbers
  std::optional<double> idle_window_s;
  std::optional<double> min_decode_window_s;
  std::optional<double> target_ci_pt;           ///< the sequential rule's target (`measure --target-ci`)
  std::optional<double> ci_confidence;          ///< of the paired ΔE intervals, when not 0.95 (sequential rule)
  std::optional<std::string> stopping_rule;     ///< what the sequential rule did, in words
};

/// One GPU of a run split over several (`measure --gpus`).
struct SplitGpu {
  std::string name;
  std::string uuid;
  std::optional<std::string> vbios;
  std::optional<double> power_limit_w;
};

/// The environment fingerprint and what it hashes (1.2).
struct Environment {
  std::string fingerprint;            ///< environment_fingerprint() of the other fields
  std::optional<std::string> gpu_name;
  std::optional<std::string> gpu_uuid;
  std::optional<std::string> vbios;
  std::optional<std::string> nvidia_driver;
  std::optional<std::string> cuda_driver;
  std::optional<double> power_limit_w;
  std::optional<bool> ecc;
  std::string engine_commit;
  std::string ecocompute_commit;
  std::string host;
  /// Every GPU of a run split over several, in order (gpu_* above describe the first); empty for one GPU.
  std::vector<SplitGpu> gpus;
};

/// One phase (prefill or decode) over the valid trials (1.2).
struct PhaseSummary {
  std::optional<double> energy_per_token_mj;
  std::optional<double> net_energy_per_token_mj;
  std::optional<double> tokens_per_s;
  std::optional<double> avg_power_w;
  std::optional<double> energy_j;
  double duration_s = 0.0;
  std::int64_t tokens = 0;
};

struct Results {
  std::optional<double> energy_per_token_mj;
  ResultBasis basis = ResultBasis::unavailable;
  std::optional<double> total_energy_joules;
  std::optional<std::int64_t> tokens_generated;
  std::optional<double> fp16_energy_per_token_mj;
  std::optional<double> vs_fp16_energy_pct;     ///< as the report states it; readers recompute from the energies
  std::optional<double> avg_power_watts;
  std::optional<double> throughput_tokens_per_s;
  std::optional<double> net_energy_per_token_mj;
  std::optional<double> idle_power_watts;
  std::optional<std::string> energy_basis;      ///< 1.2: "gross"
  std::optional<PhaseSummary> prefill;
  std::optional<PhaseSummary> decode;
  /// Server reports whose energy was measured (1.2, optional): the whole run's energy per prompt and
  /// output token together, and per request (means over valid trials); absent elsewhere.
  std::optional<double> energy_per_total_token_mj;
  std::optional<double> energy_per_request_j;
  std::optional<std::string> note;
};

/// Mean, spread and 95 % CI of a per-trial figure over a condition's valid trials.
struct Spread {
  std::optional<double> mean, sd, cv_pct, ci95_low, ci95_high;
};

/// The paired ΔE % against the same-run baseline: mean, SD and 95 % CI over n_pairs blocks.
struct PairedDelta {
  std::optional<double> mean, sd, ci95_low, ci95_high;
  std::int64_t n_pairs = 0;
};

struct Statistics {
  std::int64_t n_trials = 0;          ///< valid trials in the statistics
  std::int64_t n_failed = 0;          ///< trials that failed (throttled, invalid window, engine), each with its reason
  std::optional<std::int64_t> n_cancelled;  ///< trials interrupted or never run: not failures
  std::optional<Spread> throughput_tokens_per_s;  ///< decode throughput per valid trial
  Spread energy_per_token_mj;
  PairedDelta vs_fp16_energy_pct;
};

/// One GPU's share of a window over several GPUs: what its own counter read.
struct GpuWindowShare {
  std::string device;                   ///< GPU name and UUID, as the meter names it
  std::optional<double> energy_j;
  std::optional<double> avg_power_w;
  std::optional<double> edge_uncertainty_j;
  std::optional<std::string> status;
};

/// One measured window of one trial (1.2). Energy fields are absent when no energy source read it.
struct WindowReport {
  std::optional<double> energy_j;
  double duration_s = 0.0;
  std::int64_t tokens = 0;
  std::optional<double> energy_per_token_mj;
  std::optional<double> avg_power_w;
  std::optional<double> edge_uncertainty_j;
  std::optional<double> trace_energy_j;
  std::optional<double> trace_vs_counter_pct;
  std::optional<std::string> edge_method;    ///< "counter" or "corrected" (absent before edge correction existed)
  std::optional<double> counter_energy_j;    ///< plain counter difference, when the edges were corrected
  std::optional<double> edge_correction_j;   ///< energy_j − counter_energy_j
  std::optional<std::string> edge_correction_skipped;  ///< why a window meant to be corrected was not
  std::vector<std::string> throttle_reasons;
  std::optional<std::string> status;
  std::vector<GpuWindowShare> per_gpu;  ///< a window over several GPUs: each GPU's own reading; else empty
  std::optional<double> gpu_busy_pct;   ///< mean of the driver's GPU-utilization samples in the window
  std::optional<double> cpu_energy_j;   ///< the host's CPU packages over the window (RAPL), beside the GPU's
  std::optional<double> dram_energy_j;  ///< the host's DRAM over the window (RAPL), beside the GPU's
  std::vector<double> repeat_s;         ///< engine time of each repeat (iteration or prefill), in order
};

struct TrialReport {
  std::int64_t repetition = 0;
  std::int64_t block = 0;
  std::int64_t order_index = 0;
  std::string status;                 ///< "ok", "throttled", "invalid_window", "engine_failed", "not_run"
  std::string reason;
  std::optional<std::string> warmup;  ///< the warm-up right before the trial's windows
  std::optional<WindowReport> prefill;
  std::optional<WindowReport> decode;
};

struct Uncertainty {
  std::optional<double> edge_error_pct_max;
  std::optional<double> trace_vs_counter_pct_max;
  std::optional<double> counter_update_period_s;
  std::optional<std::string> edges;                     ///< the edge method asked for
  std::optional<std::int64_t> edge_corrections_skipped;  ///< windows that kept counter edges instead
};

struct CorpusRef {
  std::string name;
  std::uint64_t bytes = 0;
  std::string sha256;
};

struct QualityPolicy {
  std::int64_t seq_len = 0;
  std::int64_t stride = 0;
  bool add_bos = true;
};

/// Perplexity of this precision and its divergence from the baseline on the same tokens.
struct QualitySection {
  std::string metric = "perplexity";
  std::string basis = "measured";
  std::optional<double> value;
  std::optional<double> fp16_value;
  std::optional<double> delta_vs_fp16_pct;
  std::optional<double> delta_vs_fp16_pct_se;
  std::optional<double> mean_nll;
  std::optional<std::int64_t> tokens_evaluated;
  std::optional<std::int64_t> windows;
  std::optional<std::int64_t> seq_len;
  std::optional<CorpusRef> corpus;
  std::optional<double> kld;
  std::optional<double> kld_se;
  std::optional<double> kld_p99;
  std::optional<double> top1_agreement_pct;
  std::optional<QualityPolicy> policy;
  std::optional<std::string> baseline_precision;
  std::optional<std::string> note;
};

/// One energy.json. Optional sections and fields are those a 1.0/1.1 report may lack; a 1.2 report
/// written by this tool has every section (quality only when the probe ran on real weights).
struct EnergyReport {
  std::string schema_version{energy_schema_version};
  std::string benchmark;
  std::optional<bool> follows_mlcommons_energy_reporting_conventions;
  std::optional<bool> certified_benchmark_result;
  std::string scenario;               ///< "SingleStream", "Offline" or "Server" (an endpoint under concurrent load)
  std::optional<std::string> scenario_note;
  std::optional<std::string> timestamp_utc;
  std::optional<std::string> measurement_source;  ///< "direct-nvml", "rapl", "none", or a published source's words
  std::optional<std::string> share_url;
  std::optional<Provenance> provenance;
  SystemUnderTest system_under_test;
  std::optional<EngineSection> engine;
  Workload workload;
  MeasurementSection measurement;
  OrderedJson software = OrderedJson::object();  ///< free-form: the stack's names and versions as the writer gave them
  std::optional<Environment> environment;
  Results results;
  std::optional<Statistics> statistics;
  std::optional<std::vector<TrialReport>> trials;
  std::optional<Uncertainty> uncertainty;
  std::optional<QualitySection> quality;

  /// Returns whether this is a 1.2 report (every 1.2 section present).
  [[nodiscard]] bool is_v1_2() const noexcept { return schema_version == energy_schema_version; }
  /// Returns ΔE % recomputed from the two energies (energy vs the baseline's), when both are > 0.
  [[nodiscard]] std::optional<double> delta_from_energies() const;
  /// Returns the baseline precision this report was compared with: measurement.baseline_precision
  /// when given, else FP16 (the published protocol's).
  [[nodiscard]] std::string baseline_precision() const;
  /// Returns whether this report is its run's baseline (its precision is the baseline).
  [[nodiscard]] bool is_baseline() const { return workload.precision == baseline_precision(); }
};

/// Reads a parsed energy.json (1.0, 1.1 or 1.2). Absent fields stay absent; a field of the wrong
/// type, an unknown schema_version or basis is an invalid_input error that names `source` and the
/// field ("energy.json: workload.params_b: expected a number"). Never throws.
[[nodiscard]] Result<EnergyReport> energy_report_from_json(const OrderedJson& document, std::string_view source);

/// Returns the report as JSON. A 1.2 report is written with every 1.2 field in the schema's order
/// (null where a nullable figure is absent), so a report read and written again is byte-identical; a
/// 1.0/1.1 report is written with the fields it has.
[[nodiscard]] OrderedJson to_json(const EnergyReport& report);

/// Reads, parses and converts an energy.json file; the error names the path.
[[nodiscard]] Result<EnergyReport> read_energy_report(const std::filesystem::path& path);

/// Validates the report against the shipped schema, then writes it atomically (2-space indent, final
/// newline). A report with problems is not written: the error (internal) lists every problem.
[[nodiscard]] Result<void> write_energy_report(const std::filesystem::path& path, const EnergyReport& report);

}  // namespace ecocompute::report
