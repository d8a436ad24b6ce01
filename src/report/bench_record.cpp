// The field table: each column's name, unit, type and where its value comes from in energy.json.
#include "report/bench_record.hpp"

#include "report/json_access.hpp"

#include <cmath>
#include <functional>

#include <fmt/format.h>

namespace ecocompute::report {
namespace {

using Getter = std::function<Value(const OrderedJson&)>;

struct FieldSpec {
  Column column;
  Getter get;
};

Getter text(const char* pointer) {
  return [pointer](const OrderedJson& d) -> Value {
    const OrderedJson* v = find_at(d, pointer);
    return v != nullptr && v->is_string() ? Value{v->get<std::string>()} : Value{};
  };
}
Getter integer(const char* pointer) {
  return [pointer](const OrderedJson& d) -> Value {
    const OrderedJson* v = find_at(d, pointer);
    if (v != nullptr && v->is_boolean()) return Value{std::int64_t{v->get<bool>() ? 1 : 0}};
    return v != nullptr && v->is_number_integer() ? Value{v->get<std::int64_t>()} : Value{};
  };
}
Getter real(const char* pointer) {
  return [pointer](const OrderedJson& d) -> Value {
    const std::optional<double> v = number_at(d, pointer);
    return v ? Value{*v} : Value{};
  };
}
Getter none() {
  return [](const OrderedJson&) { return Value{}; };
}

// Per-trial values of the decode windows of ok trials, in trial order.
std::vector<double> decode_samples(const OrderedJson& d, const std::function<std::optional<double>(const OrderedJson&)>& f) {
  std::vector<double> out;
  const OrderedJson* trials = find_at(d, "/trials");
  if (trials == nullptr || !trials->is_array()) return out;
  for (const OrderedJson& trial : *trials) {
    if (!trial.is_object() || trial.value("status", "") != "ok") continue;
    const auto decode = trial.find("decode");
    if (decode == trial.end() || !decode->is_object()) continue;
    if (auto value = f(*decode)) out.push_back(*value);
  }
  return out;
}

std::optional<double> number(const OrderedJson& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? std::optional<double>(it->get<double>()) : std::nullopt;
}

// One llama-bench test is one iteration (prefill of the prompt + tokens_per_run generated tokens);
// a decode window holds `iterations` of them.
std::vector<double> samples_ns(const OrderedJson& d) {
  const OrderedJson* iterations = find_at(d, "/measurement/iterations");
  if (iterations == nullptr || !iterations->is_number_integer() || iterations->get<std::int64_t>() <= 0) return {};
  const double n = static_cast<double>(iterations->get<std::int64_t>());
  return decode_samples(d, [n](const OrderedJson& w) -> std::optional<double> {
    auto s = number(w, "duration_s");
    if (!s) return std::nullopt;
    return std::round(*s / n * 1e9);
  });
}
std::vector<double> samples_ts(const OrderedJson& d) {
  return decode_samples(d, [](const OrderedJson& w) -> std::optional<double> {
    auto s = number(w, "duration_s");
    auto t = number(w, "tokens");
    if (!s || !t || *s <= 0) return std::nullopt;
    return *t / *s;
  });
}
std::vector<double> samples_mj(const OrderedJson& d) {
  return decode_samples(d, [](const OrderedJson& w) { return number(w, "energy_per_token_mj"); });
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

Getter stat(std::vector<double> (*samples)(const OrderedJson&), bool want_sd, bool as_integer) {
  return [=](const OrderedJson& d) -> Value {
    const std::vector<double> v = samples(d);
    if (v.empty()) return Value{};
    const double x = want_sd ? sd(v) : mean(v);
    return as_integer ? Value{static_cast<std::int64_t>(std::llround(x))} : Value{x};
  };
}
Getter samples(std::vector<double> (*f)(const OrderedJson&)) {
  return [f](const OrderedJson& d) -> Value { return Value{f(d)}; };
}

// llama-bench's model_type reads like "llama 8B Q4_K - Medium"; ours "llama 8.03B Q4_K_M".
Value model_type(const OrderedJson& d) {
  const OrderedJson* type = find_at(d, "/workload/gguf_type");
  if (type == nullptr) type = find_at(d, "/workload/precision");
  if (type == nullptr || !type->is_string()) return Value{};
  std::string out;
  if (const OrderedJson* arch = find_at(d, "/workload/architecture"); arch != nullptr && arch->is_string()) {
    out = arch->get<std::string>() + " ";
  }
  if (const OrderedJson* params = find_at(d, "/workload/params_b"); params != nullptr && params->is_number()) {
    out += fmt::format("{:.3g}B ", params->get<double>());
  }
  return Value{out + type->get<std::string>()};
}

Column col(const char* name, const char* unit, ValueType type, const char* display = "", bool key = false,
           int decimals = -1) {
  return Column{name, unit, type, display, key, decimals};
}

const std::vector<FieldSpec>& field_table() {
  using T = ValueType;
  static const std::vector<FieldSpec> table = {
      // llama-bench's columns, same names and meanings; those we cannot know are null.
      {col("build_commit", "", T::text), text("/engine/commit")},
      {col("build_number", "", T::integer), none()},
      {col("cpu_info", "", T::text), text("/system_under_test/cpu")},
      {col("gpu_info", "", T::text, "gpu"), text("/system_under_test/gpu")},
      {col("backends", "", T::text, "backend"), text("/engine/backend")},
      {col("model_filename", "", T::text), text("/workload/model_file")},
      {col("model_type", "", T::text, "model", true), model_type},
      {col("model_size", "bytes", T::integer, "size"), integer("/workload/model_size_bytes")},
      {col("model_n_params", "", T::integer, "params"), integer("/workload/n_params")},
      {col("n_batch", "tokens", T::integer), integer("/engine/n_batch")},
      {col("n_ubatch", "tokens", T::integer), none()},
      {col("n_threads", "", T::integer, "threads"), integer("/engine/n_threads")},
      {col("type_k", "", T::text), none()},
      {col("type_v", "", T::text), none()},
      {col("n_gpu_layers", "", T::integer, "ngl"), integer("/engine/n_gpu_layers")},
      {col("flash_attn", "", T::integer, "fa"), integer("/engine/flash_attention")},
      {col("n_prompt", "tokens", T::integer), integer("/workload/prompt_tokens")},
      {col("n_gen", "tokens", T::integer), integer("/measurement/tokens_per_run")},
      {col("n_depth", "tokens", T::integer), [](const OrderedJson&) { return Value{std::int64_t{0}}; }},
      {col("test_time", "", T::text), text("/timestamp_utc")},
      {col("avg_ns", "ns", T::integer), stat(samples_ns, false, true)},
      {col("stddev_ns", "ns", T::integer), stat(samples_ns, true, true)},
      {col("avg_ts", "tokens/s", T::real, "t/s", true, 2), stat(samples_ts, false, false)},
      {col("stddev_ts", "tokens/s", T::real, "t/s sd", false, 2), stat(samples_ts, true, false)},
      // Ours: what was measured, energy, and quality against the same-run baseline.
      {col("precision", "", T::text, "precision", true), text("/workload/precision")},
      {col("precision_class", "", T::text, "class"), text("/workload/precision_class")},
      {col("bits_per_weight", "bits", T::real, "bpw", false, 2), real("/workload/bits_per_weight")},
      {col("weights", "", T::text), text("/workload/weights")},
      {col("baseline_precision", "", T::text, "baseline"), text("/measurement/baseline_precision")},
      {col("n_trials", "", T::integer, "n"), integer("/statistics/n_trials")},
      {col("measurement_source", "", T::text, "source"), text("/measurement_source")},
      {col("basis", "", T::text), text("/results/basis")},
      {col("energy_per_token_mj", "mJ/token", T::real, "mJ/token", true, 2), real("/results/energy_per_token_mj")},
      {col("energy_per_token_mj_sd", "mJ/token", T::real, "mJ/token sd", false, 2),
       real("/statistics/energy_per_token_mj/sd")},
      {col("net_energy_per_token_mj", "mJ/token", T::real, "net mJ/token", false, 2),
       real("/results/net_energy_per_token_mj")},
      {col("prefill_energy_per_token_mj", "mJ/token", T::real, "pp mJ/token", false, 3),
       real("/results/prefill/energy_per_token_mj")},
      {col("prefill_tokens_per_s", "tokens/s", T::real, "pp t/s", false, 1), real("/results/prefill/tokens_per_s")},
      {col("avg_power_w", "W", T::real, "W", true, 1), real("/results/avg_power_watts")},
      {col("idle_power_w", "W", T::real, "idle W", false, 1), real("/results/idle_power_watts")},
      {col("vs_fp16_energy_pct", "%", T::real, "dE %", true, 2), real("/results/vs_fp16_energy_pct")},
      {col("vs_fp16_energy_pct_ci95_low", "%", T::real, "dE lo", false, 2),
       real("/statistics/vs_fp16_energy_pct/ci95_low")},
      {col("vs_fp16_energy_pct_ci95_high", "%", T::real, "dE hi", false, 2),
       real("/statistics/vs_fp16_energy_pct/ci95_high")},
      {col("ppl", "", T::real, "PPL", false, 3), real("/quality/value")},
      {col("delta_ppl_pct", "%", T::real, "dPPL %", true, 2), real("/quality/delta_vs_fp16_pct")},
      {col("delta_ppl_pct_se", "%", T::real, "dPPL se", false, 2), real("/quality/delta_vs_fp16_pct_se")},
      {col("kld", "nats", T::real, "KLD", true, 4), real("/quality/kld")},
      {col("kld_se", "nats", T::real, "KLD se", false, 4), real("/quality/kld_se")},
      {col("top1_pct", "%", T::real, "top-1 %", false, 2), real("/quality/top1_agreement_pct")},
      {col("environment_fingerprint", "", T::text, "env"), text("/environment/fingerprint")},
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

Record bench_record(const OrderedJson& report) {
  Record record;
  for (const FieldSpec& spec : field_table()) record.add(spec.column, spec.get(report));
  return record;
}

void print_bench_records(Printer& printer, std::span<const OrderedJson> reports) {
  PrintContext context{bench_columns(), "", ""};
  if (!reports.empty()) {
    context.schema_version = text_at(reports.front(), "/schema_version");
    context.build_commit = text_at(reports.front(), "/engine/commit");
  }
  printer.begin(context);
  for (const OrderedJson& report : reports) printer.write(bench_record(report));
  printer.end();
}

}  // namespace ecocompute::report
