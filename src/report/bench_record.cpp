// The field table: each column's name, unit, type and which report field fills it.
#include "report/bench_record.hpp"

#include <cmath>
#include <functional>

#include <fmt/format.h>

namespace ecocompute::report {
namespace {

using Getter = std::function<Value(const EnergyReport&)>;

struct FieldSpec {
  Column column;
  Getter get;
};

Value text(const std::optional<std::string>& v) { return v ? Value{*v} : Value{}; }
// A required text field: empty means the report did not hold it.
Value text(const std::string& v) { return v.empty() ? Value{} : Value{v}; }
Value real(const std::optional<double>& v) { return v ? Value{*v} : Value{}; }
template <typename Int>
Value integer(const std::optional<Int>& v) {
  return v ? Value{static_cast<std::int64_t>(*v)} : Value{};
}

// Reads a field of an optional section; null when the section is absent.
template <typename Section, typename Get>
Value of(const std::optional<Section>& section, Get get) {
  return section ? get(*section) : Value{};
}

// Per-trial values of the decode windows of ok trials, in trial order.
std::vector<double> decode_samples(const EnergyReport& r, const std::function<std::optional<double>(const WindowReport&)>& f) {
  std::vector<double> out;
  if (!r.trials) return out;
  for (const TrialReport& trial : *r.trials) {
    if (trial.status != "ok" || !trial.decode) continue;
    if (auto value = f(*trial.decode)) out.push_back(*value);
  }
  return out;
}

// One llama-bench test is one iteration (prefill of the prompt + tokens_per_run generated tokens);
// a decode window holds `iterations` of them.
std::vector<double> samples_ns(const EnergyReport& r) {
  const std::optional<std::int64_t> iterations = r.measurement.iterations;
  if (!iterations || *iterations <= 0) return {};
  const double n = static_cast<double>(*iterations);
  return decode_samples(r, [n](const WindowReport& w) -> std::optional<double> { return std::round(w.duration_s / n * 1e9); });
}
std::vector<double> samples_ts(const EnergyReport& r) {
  return decode_samples(r, [](const WindowReport& w) -> std::optional<double> {
    if (w.duration_s <= 0) return std::nullopt;
    return static_cast<double>(w.tokens) / w.duration_s;
  });
}
std::vector<double> samples_mj(const EnergyReport& r) {
  return decode_samples(r, [](const WindowReport& w) { return w.energy_per_token_mj; });
}

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}
// Sample SD (ddof 1), as llama-bench's stdev.
double sd(const std::vector<double>& v) {
  if (v.size() < 2) return 0.0;
  const double m = mean(v);
  double ss = 0;
  for (double x : v) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

Getter stat(std::vector<double> (*samples)(const EnergyReport&), bool want_sd, bool as_integer) {
  return [=](const EnergyReport& r) -> Value {
    const std::vector<double> v = samples(r);
    if (v.empty()) return Value{};
    const double x = want_sd ? sd(v) : mean(v);
    return as_integer ? Value{static_cast<std::int64_t>(std::llround(x))} : Value{x};
  };
}
Getter samples(std::vector<double> (*f)(const EnergyReport&)) {
  return [f](const EnergyReport& r) -> Value { return Value{f(r)}; };
}

// llama-bench's model_type reads like "llama 8B Q4_K - Medium"; ours "llama 8.03B Q4_K_M".
Value model_type(const EnergyReport& r) {
  const std::string type = r.workload.gguf_type.value_or(r.workload.precision);
  if (type.empty()) return Value{};
  std::string out;
  if (r.workload.architecture) out = *r.workload.architecture + " ";
  if (r.workload.params_b) out += fmt::format("{:.3g}B ", *r.workload.params_b);
  return Value{out + type};
}

Column col(const char* name, const char* unit, ValueType type, const char* display = "", bool key = false,
           int decimals = -1) {
  return Column{name, unit, type, display, key, decimals};
}

const std::vector<FieldSpec>& field_table() {
  using T = ValueType;
  using R = const EnergyReport&;
  static const std::vector<FieldSpec> table = {
      // llama-bench's columns, same names and meanings; those we cannot know are null.
      {col("build_commit", "", T::text), [](R r) { return of(r.engine, [](const EngineSection& e) { return text(e.commit); }); }},
      {col("build_number", "", T::integer), [](R) { return Value{}; }},
      {col("cpu_info", "", T::text), [](R r) { return text(r.system_under_test.cpu); }},
      {col("gpu_info", "", T::text, "gpu"), [](R r) { return text(r.system_under_test.gpu); }},
      {col("backends", "", T::text, "backend"), [](R r) { return of(r.engine, [](const EngineSection& e) { return text(e.backend); }); }},
      {col("model_filename", "", T::text), [](R r) { return text(r.workload.model_file); }},
      {col("model_type", "", T::text, "model", true), model_type},
      {col("model_size", "bytes", T::integer, "size"), [](R r) { return integer(r.workload.model_size_bytes); }},
      {col("model_n_params", "", T::integer, "params"), [](R r) { return integer(r.workload.n_params); }},
      {col("n_batch", "tokens", T::integer), [](R r) { return of(r.engine, [](const EngineSection& e) { return Value{std::int64_t{e.n_batch}}; }); }},
      {col("n_ubatch", "tokens", T::integer), [](R) { return Value{}; }},
      {col("n_threads", "", T::integer, "threads"), [](R r) { return of(r.engine, [](const EngineSection& e) { return integer(e.n_threads); }); }},
      {col("type_k", "", T::text), [](R) { return Value{}; }},
      {col("type_v", "", T::text), [](R) { return Value{}; }},
      {col("n_gpu_layers", "", T::integer, "ngl"), [](R r) { return of(r.engine, [](const EngineSection& e) { return Value{std::int64_t{e.n_gpu_layers}}; }); }},
      {col("flash_attn", "", T::integer, "fa"), [](R r) { return of(r.engine, [](const EngineSection& e) { return Value{std::int64_t{e.flash_attention ? 1 : 0}}; }); }},
      {col("n_prompt", "tokens", T::integer), [](R r) { return integer(r.workload.prompt_tokens); }},
      {col("n_gen", "tokens", T::integer), [](R r) { return integer(r.measurement.tokens_per_run); }},
      {col("n_depth", "tokens", T::integer), [](R) { return Value{std::int64_t{0}}; }},
      {col("test_time", "", T::text), [](R r) { return text(r.timestamp_utc); }},
      {col("avg_ns", "ns", T::integer), stat(samples_ns, false, true)},
      {col("stddev_ns", "ns", T::integer), stat(samples_ns, true, true)},
      {col("avg_ts", "tokens/s", T::real, "t/s", true, 2), stat(samples_ts, false, false)},
      {col("stddev_ts", "tokens/s", T::real, "t/s sd", false, 2), stat(samples_ts, true, false)},
      // Ours: what was measured, energy, and quality against the same-run baseline.
      {col("precision", "", T::text, "precision", true), [](R r) { return text(r.workload.precision); }},
      {col("precision_class", "", T::text, "class"), [](R r) { return text(r.workload.precision_class); }},
      {col("bits_per_weight", "bits", T::real, "bpw", false, 2), [](R r) { return real(r.workload.bits_per_weight); }},
      {col("weights", "", T::text), [](R r) { return r.workload.weights ? Value{std::string(to_string(*r.workload.weights))} : Value{}; }},
      {col("baseline_precision", "", T::text, "baseline"), [](R r) { return text(r.measurement.baseline_precision); }},
      {col("n_trials", "", T::integer, "n"), [](R r) { return of(r.statistics, [](const Statistics& s) { return Value{s.n_trials}; }); }},
      {col("measurement_source", "", T::text, "source"), [](R r) { return text(r.measurement_source); }},
      {col("basis", "", T::text), [](R r) { return Value{std::string(to_string(r.results.basis))}; }},
      {col("energy_per_token_mj", "mJ/token", T::real, "mJ/token", true, 2), [](R r) { return real(r.results.energy_per_token_mj); }},
      // The units other energy tools print (optimum-benchmark, CodeCarbon): 1 kWh = 3.6e9 mJ.
      {col("tokens_per_kwh", "tokens/kWh", T::real, "tok/kWh", true, 0),
       [](R r) { return of(r.results.energy_per_token_mj, [](double mj) { return mj > 0 ? Value{3.6e9 / mj} : Value{}; }); }},
      {col("wh_per_1k_tokens", "Wh/1000 tokens", T::real, "Wh/1k tok", false, 4),
       [](R r) { return of(r.results.energy_per_token_mj, [](double mj) { return Value{mj / 3600.0}; }); }},
      {col("energy_per_token_mj_sd", "mJ/token", T::real, "mJ/token sd", false, 2),
       [](R r) { return of(r.statistics, [](const Statistics& s) { return real(s.energy_per_token_mj.sd); }); }},
      {col("net_energy_per_token_mj", "mJ/token", T::real, "net mJ/token", false, 2), [](R r) { return real(r.results.net_energy_per_token_mj); }},
      {col("prefill_energy_per_token_mj", "mJ/token", T::real, "pp mJ/token", false, 3),
       [](R r) { return of(r.results.prefill, [](const PhaseSummary& p) { return real(p.energy_per_token_mj); }); }},
      {col("prefill_tokens_per_s", "tokens/s", T::real, "pp t/s", false, 1),
       [](R r) { return of(r.results.prefill, [](const PhaseSummary& p) { return real(p.tokens_per_s); }); }},
      {col("avg_power_w", "W", T::real, "W", true, 1), [](R r) { return real(r.results.avg_power_watts); }},
      {col("idle_power_w", "W", T::real, "idle W", false, 1), [](R r) { return real(r.results.idle_power_watts); }},
      {col("vs_fp16_energy_pct", "%", T::real, "dE %", true, 2), [](R r) { return real(r.results.vs_fp16_energy_pct); }},
      {col("vs_fp16_energy_pct_ci95_low", "%", T::real, "dE lo", false, 2),
       [](R r) { return of(r.statistics, [](const Statistics& s) { return real(s.vs_fp16_energy_pct.ci95_low); }); }},
      {col("vs_fp16_energy_pct_ci95_high", "%", T::real, "dE hi", false, 2),
       [](R r) { return of(r.statistics, [](const Statistics& s) { return real(s.vs_fp16_energy_pct.ci95_high); }); }},
      {col("ppl", "", T::real, "PPL", false, 3), [](R r) { return of(r.quality, [](const QualitySection& q) { return real(q.value); }); }},
      {col("delta_ppl_pct", "%", T::real, "dPPL %", true, 2),
       [](R r) { return of(r.quality, [](const QualitySection& q) { return real(q.delta_vs_fp16_pct); }); }},
      {col("delta_ppl_pct_se", "%", T::real, "dPPL se", false, 2),
       [](R r) { return of(r.quality, [](const QualitySection& q) { return real(q.delta_vs_fp16_pct_se); }); }},
      {col("kld", "nats", T::real, "KLD", true, 4), [](R r) { return of(r.quality, [](const QualitySection& q) { return real(q.kld); }); }},
      {col("kld_se", "nats", T::real, "KLD se", false, 4), [](R r) { return of(r.quality, [](const QualitySection& q) { return real(q.kld_se); }); }},
      {col("top1_pct", "%", T::real, "top-1 %", false, 2),
       [](R r) { return of(r.quality, [](const QualitySection& q) { return real(q.top1_agreement_pct); }); }},
      {col("environment_fingerprint", "", T::text, "env"),
       [](R r) { return of(r.environment, [](const Environment& e) { return text(e.fingerprint); }); }},
      {col("samples_ns", "ns", T::samples), samples(samples_ns)},
      {col("samples_ts", "tokens/s", T::samples), samples(samples_ts)},
      {col("samples_energy_per_token_mj", "mJ/token", T::samples), samples(samples_mj)},
  };
  return table;
}

}  // namespace

const std::vector<Column>& bench_columns() {
  static const std::vector<Column> columns = [] {
    std::vector<Column> out;
    for (const FieldSpec& spec : field_table()) out.push_back(spec.column);
    return out;
  }();
  return columns;
}

Record bench_record(const EnergyReport& report) {
  Record record;
  for (const FieldSpec& spec : field_table()) record.add(spec.column, spec.get(report));
  return record;
}

void print_bench_records(Printer& printer, std::span<const EnergyReport> reports) {
  PrintContext context{bench_columns(), "", ""};
  if (!reports.empty()) {
    context.schema_version = reports.front().schema_version;
    if (reports.front().engine) context.build_commit = reports.front().engine->commit;
  }
  printer.begin(context);
  for (const EnergyReport& report : reports) printer.write(bench_record(report));
  printer.end();
}

}  // namespace ecocompute::report
