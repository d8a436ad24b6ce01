// The field table of energy.json (1.0–1.2): every member of every section, in the order a report is
// written, with its presence, the schema version that brought it, its unit, its range and whether a
// 1.2 report needs it. Reading, writing, the field reference in docs/energy-json.md, the 1.2 schema's
// required lists and ranges and the upload's range check all come from these lines, so a new field is
// one line here (and its member in energy_report.hpp, and its type in the schema). Internal to report/.
#pragma once

#include <fmt/format.h>

#include "report/energy_report.hpp"
#include "report/field_table.hpp"
#include "util/quoted_input.hpp"

namespace ecocompute::report::detail {

template <>
struct EnumSpellings<WeightsKind> {
  static Result<WeightsKind> parse(std::string_view text) { return parse_weights_kind(text); }
  static constexpr const char* list = "synthetic, trained-fixture, real";
};
template <>
struct EnumSpellings<ResultBasis> {
  static Result<ResultBasis> parse(std::string_view text) { return parse_result_basis(text); }
  static constexpr const char* list = "measured, interpolated, extrapolated, unavailable";
};

inline std::optional<std::string> known_schema_version(const std::string& version) {
  if (version == energy_schema_1_0 || version == energy_schema_1_1 || version == energy_schema_version) return std::nullopt;
  return fmt::format("{} is not ecocompute-energy/1.0, 1.1 or 1.2", quoted_input(version));
}

template <>
struct Table<Provenance> {
  static constexpr Nulls nulls = Nulls::in_1_2;
  static const auto& fields() {
    using P = Provenance;
    static const auto table = std::tuple{
        required("tool", &P::tool, v1_0),
        optional("ecocompute_version", &P::ecocompute_version, v1_0).always_in_1_2(),
        optional("ecocompute_commit", &P::ecocompute_commit, v1_0).always_in_1_2(),
        optional("run_id", &P::run_id, v1_0).always_in_1_2(),
        optional("code", &P::code, v1_1)};
    return table;
  }
};

template <>
struct Table<SystemUnderTest> {
  static constexpr Nulls nulls = Nulls::in_1_2;
  static const auto& fields() {
    using S = SystemUnderTest;
    static const auto table = std::tuple{
        required("gpu", &S::gpu, v1_0),
        required("gpu_arch", &S::gpu_arch, v1_0),
        required("accelerator_count", &S::accelerator_count, v1_0).within(FieldBounds{0, 1024}),
        optional("host", &S::host, v1_0).always_in_1_2(),
        optional("cpu", &S::cpu, v1_2)};
    return table;
  }
};

template <>
struct Table<EngineSection> {
  static constexpr Nulls nulls = Nulls::in_1_2;
  static const auto& fields() {
    using E = EngineSection;
    static const auto table = std::tuple{
        required("name", &E::name, v1_2),
        required("version", &E::version, v1_2),
        required("commit", &E::commit, v1_2),
        required("backend", &E::backend, v1_2),
        required("device", &E::device, v1_2),
        required("n_gpu_layers", &E::n_gpu_layers, v1_2).within(FieldBounds{-1, 1e5}),
        required("n_ctx", &E::n_ctx, v1_2).within(FieldBounds{0, 1e8}),
        required("n_batch", &E::n_batch, v1_2).within(FieldBounds{0, 1e8}),
        optional("n_threads", &E::n_threads, v1_2).within(FieldBounds{0, 1e5}),
        required("flash_attention", &E::flash_attention, v1_2),
        optional("token_choice", &E::token_choice, v1_2),
        optional("token_choice_note", &E::token_choice_note, v1_2)};
    return table;
  }
};

template <>
struct Table<Workload> {
  static constexpr Nulls nulls = Nulls::in_1_2;
  static const auto& fields() {
    using X = Workload;
    static const auto table = std::tuple{
        required("model_name", &X::model_name, v1_0),
        nullable("params_b", &X::params_b, v1_0, Unit::billions).within(FieldBounds{0, 1e5, true}),
        required("precision", &X::precision, v1_0),
        required("batch_size", &X::batch_size, v1_0).absent_as(1).within(FieldBounds{1, 1e6}),
        optional("concurrency", &X::concurrency, v1_2).within(FieldBounds{1, 1e6}),
        optional("context_length", &X::context_length, v1_0).within(FieldBounds{0, 1e8}),
        optional("weights", &X::weights, v1_2),
        optional("gguf_type", &X::gguf_type, v1_2),
        optional("precision_class", &X::precision_class, v1_2),
        nullable("bits_per_weight", &X::bits_per_weight, v1_2).within(FieldBounds{0, 64, true}).by_scenario_in_1_2(),
        optional("model_sha256", &X::model_sha256, v1_2),
        optional("prompt_tokens", &X::prompt_tokens, v1_2).within(bounds::count).always_in_1_2(),
        optional("decoding", &X::decoding, v1_2).always_in_1_2(),
        optional("architecture", &X::architecture, v1_2),
        optional("model_file", &X::model_file, v1_2),
        optional("model_size_bytes", &X::model_size_bytes, v1_2, Unit::bytes).within(bounds::count),
        optional("n_params", &X::n_params, v1_2).within(bounds::count)};
    return table;
  }
};

template <>
struct Table<MeasurementSection> {
  static constexpr Nulls nulls = Nulls::in_1_2;
  static const auto& fields() {
    using M = MeasurementSection;
    static const auto table = std::tuple{
        required("method", &M::method, v1_0),
        optional("sample_rate_hz", &M::sample_rate_hz, v1_0, Unit::Hz).within(FieldBounds{0, 1e6}).always_in_1_2(),
        optional("tokens_per_run", &M::tokens_per_run, v1_0).within(bounds::count).always_in_1_2(),
        optional("iterations", &M::iterations, v1_0).within(bounds::count).always_in_1_2(),
        optional("warmup", &M::warmup, v1_0).within(bounds::count).always_in_1_2(),
        optional("iterations_note", &M::iterations_note, v1_0).always_in_1_2(),
        optional("window", &M::window, v1_2).always_in_1_2(),
        optional("baseline_precision", &M::baseline_precision, v1_2).always_in_1_2(),
        optional("trials_per_precision", &M::trials_per_precision, v1_2).within(FieldBounds{1, 1e5}).always_in_1_2(),
        optional("schedule", &M::schedule, v1_2).always_in_1_2(),
        optional("seed", &M::seed, v1_2).always_in_1_2(),
        optional("idle_window_s", &M::idle_window_s, v1_2, Unit::s).within(bounds::seconds),
        optional("min_decode_window_s", &M::min_decode_window_s, v1_2, Unit::s).within(bounds::seconds),
        optional("target_ci_pt", &M::target_ci_pt, v1_2).within(FieldBounds{0, 100, true}),
        optional("ci_confidence", &M::ci_confidence, v1_2).within(FieldBounds{0, 1, true, true}),
        optional("stopping_rule", &M::stopping_rule, v1_2)};
    return table;
  }
};

template <>
struct Table<SplitGpu> {
  static constexpr Nulls nulls = Nulls::always;
  static const auto& fields() {
    static const auto table = std::tuple{
        required("name", &SplitGpu::name, v1_2),
        required("uuid", &SplitGpu::uuid, v1_2),
        nullable("vbios", &SplitGpu::vbios, v1_2),
        nullable("power_limit_w", &SplitGpu::power_limit_w, v1_2, Unit::W).within(bounds::watts)};
    return table;
  }
};

template <>
struct Table<Environment> {
  static constexpr Nulls nulls = Nulls::always;
  static const auto& fields() {
    using E = Environment;
    static const auto table = std::tuple{
        required("fingerprint", &E::fingerprint, v1_2),
        nullable("gpu_name", &E::gpu_name, v1_2),
        nullable("gpu_uuid", &E::gpu_uuid, v1_2),
        nullable("vbios", &E::vbios, v1_2),
        nullable("nvidia_driver", &E::nvidia_driver, v1_2),
        nullable("cuda_driver", &E::cuda_driver, v1_2),
        nullable("power_limit_w", &E::power_limit_w, v1_2, Unit::W).within(bounds::watts),
        nullable("ecc", &E::ecc, v1_2),
        required("engine_commit", &E::engine_commit, v1_2),
        required("ecocompute_commit", &E::ecocompute_commit, v1_2),
        required("host", &E::host, v1_2),
        optional("gpus", &E::gpus, v1_2)};
    return table;
  }
};

template <>
struct Table<PhaseSummary> {
  static constexpr Nulls nulls = Nulls::always;
  static const auto& fields() {
    using P = PhaseSummary;
    static const auto table = std::tuple{
        nullable("energy_per_token_mj", &P::energy_per_token_mj, v1_2, Unit::mJ).within(bounds::mj_per_token),
        nullable("net_energy_per_token_mj", &P::net_energy_per_token_mj, v1_2, Unit::mJ).within(bounds::net_mj_per_token),
        nullable("tokens_per_s", &P::tokens_per_s, v1_2, Unit::tokens_per_s).within(bounds::tokens_per_s),
        nullable("avg_power_w", &P::avg_power_w, v1_2, Unit::W).within(bounds::watts),
        nullable("energy_j", &P::energy_j, v1_2, Unit::J).within(bounds::joules),
        required("duration_s", &P::duration_s, v1_2, Unit::s).within(bounds::seconds),
        required("tokens", &P::tokens, v1_2).within(bounds::count)};
    return table;
  }
};

template <>
struct Table<Results> {
  static constexpr Nulls nulls = Nulls::in_1_2;
  static const auto& fields() {
    using R = Results;
    static const auto table = std::tuple{
        nullable("energy_per_token_mj", &R::energy_per_token_mj, v1_0, Unit::mJ).within(bounds::mj_per_token),
        required("basis", &R::basis, v1_0),
        nullable("total_energy_joules", &R::total_energy_joules, v1_0, Unit::J).within(bounds::joules),
        nullable("tokens_generated", &R::tokens_generated, v1_0).within(bounds::count),
        nullable("fp16_energy_per_token_mj", &R::fp16_energy_per_token_mj, v1_0, Unit::mJ).within(bounds::mj_per_token),
        nullable("vs_fp16_energy_pct", &R::vs_fp16_energy_pct, v1_0, Unit::pct).within(bounds::change_pct),
        nullable("avg_power_watts", &R::avg_power_watts, v1_0, Unit::W).within(bounds::watts),
        nullable("throughput_tokens_per_s", &R::throughput_tokens_per_s, v1_0, Unit::tokens_per_s).within(bounds::tokens_per_s),
        nullable_in_1_2("net_energy_per_token_mj", &R::net_energy_per_token_mj, v1_2, Unit::mJ).within(bounds::net_mj_per_token),
        nullable_in_1_2("idle_power_watts", &R::idle_power_watts, v1_2, Unit::W).within(bounds::watts),
        optional("energy_basis", &R::energy_basis, v1_2).always_in_1_2(),
        // A Server report has no prefill phase of its own (prefills run inside the steady-state window): null.
        nullable("prefill", &R::prefill, v1_2),
        optional("decode", &R::decode, v1_2).always_in_1_2(),
        optional("energy_per_total_token_mj", &R::energy_per_total_token_mj, v1_2, Unit::mJ).within(bounds::mj_per_token),
        optional("energy_per_request_j", &R::energy_per_request_j, v1_2, Unit::J).within(bounds::joules),
        optional("note", &R::note, v1_0)};
    return table;
  }
};

template <>
struct Table<Spread> {
  static constexpr Nulls nulls = Nulls::always;
  static const auto& fields() {
    static const auto table = std::tuple{
        nullable("mean", &Spread::mean, v1_2).within(bounds::in_parent),
        nullable("sd", &Spread::sd, v1_2).within(bounds::non_negative),
        nullable("cv_pct", &Spread::cv_pct, v1_2, Unit::pct).within(bounds::non_negative),
        nullable("ci95_low", &Spread::ci95_low, v1_2).within(bounds::in_parent_signed),
        nullable("ci95_high", &Spread::ci95_high, v1_2).within(bounds::in_parent_signed)};
    return table;
  }
};

template <>
struct Table<PairedDelta> {
  static constexpr Nulls nulls = Nulls::always;
  static const auto& fields() {
    using D = PairedDelta;
    static const auto table = std::tuple{
        nullable("mean", &D::mean, v1_2, Unit::pct).within(bounds::change_pct),
        nullable("sd", &D::sd, v1_2, Unit::pct).within(bounds::non_negative),
        nullable("ci95_low", &D::ci95_low, v1_2, Unit::pct).within(bounds::signed_pct),
        nullable("ci95_high", &D::ci95_high, v1_2, Unit::pct).within(bounds::signed_pct),
        required("n_pairs", &D::n_pairs, v1_2).within(bounds::count)};
    return table;
  }
};

template <>
struct Table<Statistics> {
  static constexpr Nulls nulls = Nulls::always;
  static const auto& fields() {
    using X = Statistics;
    static const auto table = std::tuple{
        required("n_trials", &X::n_trials, v1_2).within(bounds::count),
        required("n_failed", &X::n_failed, v1_2).within(bounds::count),
        optional("n_cancelled", &X::n_cancelled, v1_2).within(bounds::count),
        optional("throughput_tokens_per_s", &X::throughput_tokens_per_s, v1_2, Unit::tokens_per_s).within(bounds::tokens_per_s),
        required("energy_per_token_mj", &X::energy_per_token_mj, v1_2, Unit::mJ).within(bounds::mj_per_token),
        required("vs_fp16_energy_pct", &X::vs_fp16_energy_pct, v1_2, Unit::pct)};
    return table;
  }
};

template <>
struct Table<GpuWindowShare> {
  static constexpr Nulls nulls = Nulls::always;
  static const auto& fields() {
    using G = GpuWindowShare;
    static const auto table = std::tuple{
        required("device", &G::device, v1_2),
        nullable("energy_j", &G::energy_j, v1_2, Unit::J).within(bounds::joules),
        nullable("avg_power_w", &G::avg_power_w, v1_2, Unit::W).within(bounds::watts),
        nullable("edge_uncertainty_j", &G::edge_uncertainty_j, v1_2, Unit::J).within(bounds::joules),
        optional("status", &G::status, v1_2)};
    return table;
  }
};

template <>
struct Table<WindowReport> {
  static constexpr Nulls nulls = Nulls::always;
  static const auto& fields() {
    using X = WindowReport;
    static const auto table = std::tuple{
        nullable("energy_j", &X::energy_j, v1_2, Unit::J).within(bounds::joules),
        required("duration_s", &X::duration_s, v1_2, Unit::s).within(bounds::seconds),
        required("tokens", &X::tokens, v1_2).within(bounds::count),
        nullable("energy_per_token_mj", &X::energy_per_token_mj, v1_2, Unit::mJ).within(bounds::mj_per_token),
        nullable("avg_power_w", &X::avg_power_w, v1_2, Unit::W).within(bounds::watts),
        nullable("edge_uncertainty_j", &X::edge_uncertainty_j, v1_2, Unit::J).within(bounds::joules),
        nullable("trace_energy_j", &X::trace_energy_j, v1_2, Unit::J).within(bounds::joules),
        nullable("trace_vs_counter_pct", &X::trace_vs_counter_pct, v1_2, Unit::pct).within(bounds::change_pct),
        optional("edge_method", &X::edge_method, v1_2),
        optional("counter_energy_j", &X::counter_energy_j, v1_2, Unit::J).within(bounds::joules),
        optional("edge_correction_j", &X::edge_correction_j, v1_2, Unit::J),
        optional("edge_correction_skipped", &X::edge_correction_skipped, v1_2),
        required("throttle_reasons", &X::throttle_reasons, v1_2),
        optional("status", &X::status, v1_2),
        optional("gpu_busy_pct", &X::gpu_busy_pct, v1_2, Unit::pct).within(bounds::share_pct),
        optional("cpu_energy_j", &X::cpu_energy_j, v1_2, Unit::J).within(bounds::unbounded_non_negative),
        optional("dram_energy_j", &X::dram_energy_j, v1_2, Unit::J).within(bounds::unbounded_non_negative),
        optional("repeat_s", &X::repeat_s, v1_2, Unit::s),
        optional("per_gpu", &X::per_gpu, v1_2)};
    return table;
  }
};

template <>
struct Table<TrialReport> {
  static constexpr Nulls nulls = Nulls::always;
  static const auto& fields() {
    using T = TrialReport;
    static const auto table = std::tuple{
        required("repetition", &T::repetition, v1_2).within(bounds::count),
        required("block", &T::block, v1_2).within(bounds::count),
        required("order_index", &T::order_index, v1_2).within(bounds::count),
        required("status", &T::status, v1_2),
        required("reason", &T::reason, v1_2),
        optional("warmup", &T::warmup, v1_2),
        nullable("prefill", &T::prefill, v1_2),
        nullable("decode", &T::decode, v1_2)};
    return table;
  }
};

template <>
struct Table<Uncertainty> {
  static constexpr Nulls nulls = Nulls::always;
  static const auto& fields() {
    using U = Uncertainty;
    static const auto table = std::tuple{
        nullable("edge_error_pct_max", &U::edge_error_pct_max, v1_2, Unit::pct).within(bounds::non_negative),
        nullable("trace_vs_counter_pct_max", &U::trace_vs_counter_pct_max, v1_2, Unit::pct).within(bounds::non_negative),
        nullable("counter_update_period_s", &U::counter_update_period_s, v1_2, Unit::s).within(bounds::seconds),
        optional("edges", &U::edges, v1_2),
        optional("edge_corrections_skipped", &U::edge_corrections_skipped, v1_2).within(bounds::count)};
    return table;
  }
};

template <>
struct Table<CorpusRef> {
  static constexpr Nulls nulls = Nulls::in_1_2;
  static const auto& fields() {
    static const auto table = std::tuple{
        required("name", &CorpusRef::name, v1_1),
        required("bytes", &CorpusRef::bytes, v1_1, Unit::bytes).within(bounds::count),
        required("sha256", &CorpusRef::sha256, v1_1)};
    return table;
  }
};

template <>
struct Table<QualityPolicy> {
  static constexpr Nulls nulls = Nulls::in_1_2;
  static const auto& fields() {
    static const auto table = std::tuple{
        required("seq_len", &QualityPolicy::seq_len, v1_2).within(FieldBounds{1, 1e8}),
        required("stride", &QualityPolicy::stride, v1_2).within(FieldBounds{1, 1e8}),
        required("add_bos", &QualityPolicy::add_bos, v1_2).absent_as(true)};
    return table;
  }
};

template <>
struct Table<QualitySection> {
  static constexpr Nulls nulls = Nulls::in_1_2;
  static const auto& fields() {
    using Q = QualitySection;
    static const auto table = std::tuple{
        required("metric", &Q::metric, v1_1),
        required("basis", &Q::basis, v1_1),
        nullable("value", &Q::value, v1_1).within(bounds::perplexity),
        nullable("fp16_value", &Q::fp16_value, v1_1).within(bounds::perplexity),
        nullable("delta_vs_fp16_pct", &Q::delta_vs_fp16_pct, v1_1, Unit::pct).within(bounds::change_pct),
        nullable("delta_vs_fp16_pct_se", &Q::delta_vs_fp16_pct_se, v1_2, Unit::pct).within(bounds::non_negative),
        nullable("mean_nll", &Q::mean_nll, v1_1).within(bounds::non_negative),
        nullable("tokens_evaluated", &Q::tokens_evaluated, v1_1).within(bounds::count),
        nullable("windows", &Q::windows, v1_1).within(bounds::count),
        nullable("seq_len", &Q::seq_len, v1_1).within(FieldBounds{1, 1e8}),
        nullable("corpus", &Q::corpus, v1_1),
        nullable("kld", &Q::kld, v1_2).within(bounds::non_negative),
        nullable("kld_se", &Q::kld_se, v1_2).within(bounds::non_negative),
        nullable("kld_p99", &Q::kld_p99, v1_2).within(bounds::non_negative),
        nullable("top1_agreement_pct", &Q::top1_agreement_pct, v1_2, Unit::pct).within(bounds::share_pct),
        optional("policy", &Q::policy, v1_2).always_in_1_2(),
        optional("baseline_precision", &Q::baseline_precision, v1_2),
        optional("note", &Q::note, v1_2)};
    return table;
  }
};

template <>
struct Table<EnergyReport> {
  static constexpr Nulls nulls = Nulls::in_1_2;
  static const auto& fields() {
    using R = EnergyReport;
    static const auto table = std::tuple{
        required("schema_version", &R::schema_version, v1_0).checked_by(known_schema_version),
        required("benchmark", &R::benchmark, v1_0),
        optional("follows_mlcommons_energy_reporting_conventions", &R::follows_mlcommons_energy_reporting_conventions, v1_1),
        optional("certified_benchmark_result", &R::certified_benchmark_result, v1_0).always_in_1_2(),
        required("scenario", &R::scenario, v1_0),
        optional("scenario_note", &R::scenario_note, v1_0).always_in_1_2(),
        optional("timestamp_utc", &R::timestamp_utc, v1_0).always_in_1_2(),
        optional("measurement_source", &R::measurement_source, v1_0).always_in_1_2(),
        optional("share_url", &R::share_url, v1_1),
        optional("provenance", &R::provenance, v1_0).always_in_1_2(),
        required("system_under_test", &R::system_under_test, v1_0),
        optional("engine", &R::engine, v1_2).always_in_1_2(),
        required("workload", &R::workload, v1_0),
        required("measurement", &R::measurement, v1_0),
        // Free-form; a 1.2 report always has it, a published one only when it says something.
        nullable("software", &R::software, v1_0),
        optional("environment", &R::environment, v1_2).always_in_1_2(),
        required("results", &R::results, v1_0),
        optional("statistics", &R::statistics, v1_2).always_in_1_2(),
        optional("trials", &R::trials, v1_2).always_in_1_2(),
        optional("uncertainty", &R::uncertainty, v1_2).always_in_1_2(),
        optional("quality", &R::quality, v1_1)};
    return table;
  }
};

}  // namespace ecocompute::report::detail
