// energy.json ↔ EnergyReport: the only code that knows the report's field names. Reading is tolerant
// of absence (1.0/1.1 reports lack most 1.2 fields) and strict on type; writing follows the 1.2
// schema's order so that our reports read and written again are byte-identical.
#include "report/energy_report.hpp"
#include "util/quoted_input.hpp"

#include <fmt/format.h>

#include "report/energy_schema.hpp"
#include "report/report_json.hpp"
#include "util/file_io.hpp"

namespace ecocompute::report {
namespace {

using detail::JsonReader;
using detail::JsonWriter;

Provenance read_provenance(const JsonReader& r) {
  Provenance p;
  p.tool = r.text_or("tool", "");
  p.ecocompute_version = r.text("ecocompute_version");
  p.ecocompute_commit = r.text("ecocompute_commit");
  p.run_id = r.text("run_id");
  p.code = r.text("code");
  return p;
}

SystemUnderTest read_system(const JsonReader& r) {
  SystemUnderTest s;
  s.gpu = r.text_or("gpu", "");
  s.gpu_arch = r.text_or("gpu_arch", "");
  s.accelerator_count = static_cast<int>(r.integer("accelerator_count").value_or(0));
  s.host = r.text("host");
  s.cpu = r.text("cpu");
  return s;
}

EngineSection read_engine(const JsonReader& r) {
  EngineSection e;
  e.name = r.text_or("name", "");
  e.version = r.text_or("version", "");
  e.commit = r.text_or("commit", "");
  e.backend = r.text_or("backend", "");
  e.device = r.text_or("device", "");
  e.n_gpu_layers = static_cast<int>(r.integer("n_gpu_layers").value_or(0));
  e.n_ctx = static_cast<std::uint32_t>(r.integer("n_ctx").value_or(0));
  e.n_batch = static_cast<std::uint32_t>(r.integer("n_batch").value_or(0));
  if (auto n = r.integer("n_threads")) e.n_threads = static_cast<int>(*n);
  e.flash_attention = r.boolean("flash_attention").value_or(false);
  e.token_choice = r.text("token_choice");
  e.token_choice_note = r.text("token_choice_note");
  return e;
}

Workload read_workload(const JsonReader& r) {
  Workload w;
  w.model_name = r.text_or("model_name", "");
  w.params_b = r.number("params_b");
  w.precision = r.text_or("precision", "");
  w.batch_size = static_cast<int>(r.integer("batch_size").value_or(1));
  if (auto c = r.integer("concurrency")) w.concurrency = static_cast<int>(*c);
  w.context_length = r.integer("context_length");
  if (auto weights = r.text("weights")) w.weights = r.parsed("weights", parse_weights_kind(*weights));
  w.gguf_type = r.text("gguf_type");
  w.precision_class = r.text("precision_class");
  w.bits_per_weight = r.number("bits_per_weight");
  w.model_sha256 = r.text("model_sha256");
  w.prompt_tokens = r.integer("prompt_tokens");
  w.decoding = r.text("decoding");
  w.architecture = r.text("architecture");
  w.model_file = r.text("model_file");
  w.model_size_bytes = r.unsigned_integer("model_size_bytes");
  w.n_params = r.unsigned_integer("n_params");
  return w;
}

MeasurementSection read_measurement(const JsonReader& r) {
  MeasurementSection m;
  m.method = r.text_or("method", "");
  m.sample_rate_hz = r.integer("sample_rate_hz");
  m.tokens_per_run = r.integer("tokens_per_run");
  m.iterations = r.integer("iterations");
  m.warmup = r.integer("warmup");
  m.iterations_note = r.text("iterations_note");
  m.window = r.text("window");
  m.baseline_precision = r.text("baseline_precision");
  if (auto k = r.integer("trials_per_precision")) m.trials_per_precision = static_cast<int>(*k);
  m.schedule = r.text("schedule");
  m.seed = r.text("seed");
  m.idle_window_s = r.number("idle_window_s");
  m.min_decode_window_s = r.number("min_decode_window_s");
  m.target_ci_pt = r.number("target_ci_pt");
  m.ci_confidence = r.number("ci_confidence");
  m.stopping_rule = r.text("stopping_rule");
  return m;
}

Environment read_environment(const JsonReader& r) {
  Environment e;
  e.fingerprint = r.text_or("fingerprint", "");
  e.gpu_name = r.text("gpu_name");
  e.gpu_uuid = r.text("gpu_uuid");
  e.vbios = r.text("vbios");
  e.nvidia_driver = r.text("nvidia_driver");
  e.cuda_driver = r.text("cuda_driver");
  e.power_limit_w = r.number("power_limit_w");
  e.ecc = r.boolean("ecc");
  e.engine_commit = r.text_or("engine_commit", "");
  e.ecocompute_commit = r.text_or("ecocompute_commit", "");
  e.host = r.text_or("host", "");
  if (auto gpus = r.objects("gpus")) {
    for (const JsonReader& g : *gpus) {
      e.gpus.push_back(SplitGpu{g.text_or("name", ""), g.text_or("uuid", ""), g.text("vbios"), g.number("power_limit_w")});
    }
  }
  return e;
}

PhaseSummary read_phase(const JsonReader& r) {
  PhaseSummary p;
  p.energy_per_token_mj = r.number("energy_per_token_mj");
  p.net_energy_per_token_mj = r.number("net_energy_per_token_mj");
  p.tokens_per_s = r.number("tokens_per_s");
  p.avg_power_w = r.number("avg_power_w");
  p.energy_j = r.number("energy_j");
  p.duration_s = r.number("duration_s").value_or(0.0);
  p.tokens = r.integer("tokens").value_or(0);
  return p;
}

Results read_results(const JsonReader& r) {
  Results x;
  x.energy_per_token_mj = r.number("energy_per_token_mj");
  x.basis = r.parsed("basis", parse_result_basis(r.text_or("basis", "")));
  x.total_energy_joules = r.number("total_energy_joules");
  x.tokens_generated = r.integer("tokens_generated");
  x.fp16_energy_per_token_mj = r.number("fp16_energy_per_token_mj");
  x.vs_fp16_energy_pct = r.number("vs_fp16_energy_pct");
  x.avg_power_watts = r.number("avg_power_watts");
  x.throughput_tokens_per_s = r.number("throughput_tokens_per_s");
  x.net_energy_per_token_mj = r.number("net_energy_per_token_mj");
  x.idle_power_watts = r.number("idle_power_watts");
  x.energy_basis = r.text("energy_basis");
  if (auto p = r.object("prefill")) x.prefill = read_phase(*p);
  if (auto d = r.object("decode")) x.decode = read_phase(*d);
  x.energy_per_total_token_mj = r.number("energy_per_total_token_mj");
  x.energy_per_request_j = r.number("energy_per_request_j");
  x.note = r.text("note");
  return x;
}

Spread read_spread(const JsonReader& r) {
  return Spread{r.number("mean"), r.number("sd"), r.number("cv_pct"), r.number("ci95_low"), r.number("ci95_high")};
}

Statistics read_statistics(const JsonReader& r) {
  Statistics s;
  s.n_trials = r.integer("n_trials").value_or(0);
  s.n_failed = r.integer("n_failed").value_or(0);
  s.n_cancelled = r.integer("n_cancelled");
  if (auto t = r.object("throughput_tokens_per_s")) s.throughput_tokens_per_s = read_spread(*t);
  if (auto e = r.object("energy_per_token_mj")) s.energy_per_token_mj = read_spread(*e);
  if (auto d = r.object("vs_fp16_energy_pct")) s.vs_fp16_energy_pct = detail::read_paired_delta(*d);
  return s;
}

WindowReport read_window(const JsonReader& r) {
  WindowReport w;
  w.energy_j = r.number("energy_j");
  w.duration_s = r.number("duration_s").value_or(0.0);
  w.tokens = r.integer("tokens").value_or(0);
  w.energy_per_token_mj = r.number("energy_per_token_mj");
  w.avg_power_w = r.number("avg_power_w");
  w.edge_uncertainty_j = r.number("edge_uncertainty_j");
  w.trace_energy_j = r.number("trace_energy_j");
  w.trace_vs_counter_pct = r.number("trace_vs_counter_pct");
  w.edge_method = r.text("edge_method");
  w.counter_energy_j = r.number("counter_energy_j");
  w.edge_correction_j = r.number("edge_correction_j");
  w.edge_correction_skipped = r.text("edge_correction_skipped");
  w.throttle_reasons = r.texts("throttle_reasons");
  w.status = r.text("status");
  w.gpu_busy_pct = r.number("gpu_busy_pct");
  w.repeat_s = r.numbers("repeat_s");
  if (auto shares = r.objects("per_gpu")) {
    for (const JsonReader& g : *shares) {
      w.per_gpu.push_back(GpuWindowShare{g.text_or("device", ""), g.number("energy_j"), g.number("avg_power_w"),
                                         g.number("edge_uncertainty_j"), g.text("status")});
    }
  }
  return w;
}

TrialReport read_trial(const JsonReader& r) {
  TrialReport t;
  t.repetition = r.integer("repetition").value_or(0);
  t.block = r.integer("block").value_or(0);
  t.order_index = r.integer("order_index").value_or(0);
  t.status = r.text_or("status", "");
  t.reason = r.text_or("reason", "");
  t.warmup = r.text("warmup");
  if (auto p = r.object("prefill")) t.prefill = read_window(*p);
  if (auto d = r.object("decode")) t.decode = read_window(*d);
  return t;
}

QualitySection read_quality(const JsonReader& r) {
  QualitySection q;
  q.metric = r.text_or("metric", "");
  q.basis = r.text_or("basis", "");
  q.value = r.number("value");
  q.fp16_value = r.number("fp16_value");
  q.delta_vs_fp16_pct = r.number("delta_vs_fp16_pct");
  q.delta_vs_fp16_pct_se = r.number("delta_vs_fp16_pct_se");
  q.mean_nll = r.number("mean_nll");
  q.tokens_evaluated = r.integer("tokens_evaluated");
  q.windows = r.integer("windows");
  q.seq_len = r.integer("seq_len");
  if (auto c = r.object("corpus")) {
    q.corpus = CorpusRef{c->text_or("name", ""), c->unsigned_integer("bytes").value_or(0), c->text_or("sha256", "")};
  }
  q.kld = r.number("kld");
  q.kld_se = r.number("kld_se");
  q.kld_p99 = r.number("kld_p99");
  q.top1_agreement_pct = r.number("top1_agreement_pct");
  if (auto p = r.object("policy")) {
    q.policy = QualityPolicy{p->integer("seq_len").value_or(0), p->integer("stride").value_or(0),
                             p->boolean("add_bos").value_or(true)};
  }
  q.baseline_precision = r.text("baseline_precision");
  q.note = r.text("note");
  return q;
}

EnergyReport read_report(const JsonReader& r) {
  EnergyReport report;
  report.schema_version = r.text_or("schema_version", "");
  if (report.schema_version != energy_schema_1_0 && report.schema_version != energy_schema_1_1 &&
      report.schema_version != energy_schema_version) {
    r.fail("schema_version", fmt::format("{} is not ecocompute-energy/1.0, 1.1 or 1.2", quoted_input(report.schema_version)));
  }
  report.benchmark = r.text_or("benchmark", "");
  report.follows_mlcommons_energy_reporting_conventions = r.boolean("follows_mlcommons_energy_reporting_conventions");
  report.certified_benchmark_result = r.boolean("certified_benchmark_result");
  report.scenario = r.text_or("scenario", "");
  report.scenario_note = r.text("scenario_note");
  report.timestamp_utc = r.text("timestamp_utc");
  report.measurement_source = r.text("measurement_source");
  report.share_url = r.text("share_url");
  if (auto p = r.object("provenance")) report.provenance = read_provenance(*p);
  report.system_under_test = read_system(r.object_or_empty("system_under_test"));
  if (auto e = r.object("engine")) report.engine = read_engine(*e);
  report.workload = read_workload(r.object_or_empty("workload"));
  report.measurement = read_measurement(r.object_or_empty("measurement"));
  if (auto s = r.object("software")) report.software = s->json();
  if (auto e = r.object("environment")) report.environment = read_environment(*e);
  report.results = read_results(r.object_or_empty("results"));
  if (auto s = r.object("statistics")) report.statistics = read_statistics(*s);
  if (auto trials = r.objects("trials")) {
    report.trials.emplace();
    for (const JsonReader& t : *trials) report.trials->push_back(read_trial(t));
  }
  if (auto u = r.object("uncertainty")) {
    report.uncertainty = Uncertainty{u->number("edge_error_pct_max"), u->number("trace_vs_counter_pct_max"),
                                     u->number("counter_update_period_s"), u->text("edges"),
                                     u->integer("edge_corrections_skipped")};
  }
  if (auto q = r.object("quality")) report.quality = read_quality(*q);
  return report;
}

// --- writing -------------------------------------------------------------------------------------

OrderedJson phase_json(const PhaseSummary& p) {
  JsonWriter w(true);
  w.nullable("energy_per_token_mj", p.energy_per_token_mj);
  w.nullable("net_energy_per_token_mj", p.net_energy_per_token_mj);
  w.nullable("tokens_per_s", p.tokens_per_s);
  w.nullable("avg_power_w", p.avg_power_w);
  w.nullable("energy_j", p.energy_j);
  w.put("duration_s", p.duration_s);
  w.put("tokens", p.tokens);
  return w.take();
}

OrderedJson window_json(const std::optional<WindowReport>& window) {
  if (!window) return nullptr;
  const WindowReport& x = *window;
  JsonWriter w(true);
  w.nullable("energy_j", x.energy_j);
  w.put("duration_s", x.duration_s);
  w.put("tokens", x.tokens);
  w.nullable("energy_per_token_mj", x.energy_per_token_mj);
  w.nullable("avg_power_w", x.avg_power_w);
  w.nullable("edge_uncertainty_j", x.edge_uncertainty_j);
  w.nullable("trace_energy_j", x.trace_energy_j);
  w.nullable("trace_vs_counter_pct", x.trace_vs_counter_pct);
  w.optional("edge_method", x.edge_method);
  w.optional("counter_energy_j", x.counter_energy_j);
  w.optional("edge_correction_j", x.edge_correction_j);
  w.optional("edge_correction_skipped", x.edge_correction_skipped);
  w.put("throttle_reasons", x.throttle_reasons);
  w.optional("status", x.status);
  w.optional("gpu_busy_pct", x.gpu_busy_pct);
  if (!x.repeat_s.empty()) w.put("repeat_s", x.repeat_s);
  if (!x.per_gpu.empty()) {
    OrderedJson shares = OrderedJson::array();
    for (const GpuWindowShare& g : x.per_gpu) {
      JsonWriter share(true);
      share.put("device", g.device);
      share.nullable("energy_j", g.energy_j);
      share.nullable("avg_power_w", g.avg_power_w);
      share.nullable("edge_uncertainty_j", g.edge_uncertainty_j);
      share.optional("status", g.status);
      shares.push_back(share.take());
    }
    w.put("per_gpu", std::move(shares));
  }
  return w.take();
}

OrderedJson provenance_json(const Provenance& p) {
  JsonWriter w(false);
  w.put("tool", p.tool);
  w.optional("ecocompute_version", p.ecocompute_version);
  w.optional("ecocompute_commit", p.ecocompute_commit);
  w.optional("run_id", p.run_id);
  w.optional("code", p.code);
  return w.take();
}

OrderedJson system_json(const SystemUnderTest& s) {
  JsonWriter w(false);
  w.put("gpu", s.gpu);
  w.put("gpu_arch", s.gpu_arch);
  w.put("accelerator_count", s.accelerator_count);
  w.optional("host", s.host);
  w.optional("cpu", s.cpu);
  return w.take();
}

OrderedJson engine_json(const EngineSection& e) {
  JsonWriter w(false);
  w.put("name", e.name);
  w.put("version", e.version);
  w.put("commit", e.commit);
  w.put("backend", e.backend);
  w.put("device", e.device);
  w.put("n_gpu_layers", e.n_gpu_layers);
  w.put("n_ctx", e.n_ctx);
  w.put("n_batch", e.n_batch);
  w.optional("n_threads", e.n_threads);
  w.put("flash_attention", e.flash_attention);
  w.optional("token_choice", e.token_choice);
  w.optional("token_choice_note", e.token_choice_note);
  return w.take();
}

OrderedJson workload_json(const Workload& x, bool v12) {
  JsonWriter w(v12);
  w.put("model_name", x.model_name);
  w.nullable("params_b", x.params_b);
  w.put("precision", x.precision);
  w.put("batch_size", x.batch_size);
  w.optional("concurrency", x.concurrency);
  w.optional("context_length", x.context_length);
  if (x.weights) w.put("weights", to_string(*x.weights));
  w.optional("gguf_type", x.gguf_type);
  w.optional("precision_class", x.precision_class);
  w.nullable("bits_per_weight", x.bits_per_weight);
  w.optional("model_sha256", x.model_sha256);
  w.optional("prompt_tokens", x.prompt_tokens);
  w.optional("decoding", x.decoding);
  w.optional("architecture", x.architecture);
  w.optional("model_file", x.model_file);
  w.optional("model_size_bytes", x.model_size_bytes);
  w.optional("n_params", x.n_params);
  return w.take();
}

OrderedJson measurement_json(const MeasurementSection& m) {
  JsonWriter w(false);
  w.put("method", m.method);
  w.optional("sample_rate_hz", m.sample_rate_hz);
  w.optional("tokens_per_run", m.tokens_per_run);
  w.optional("iterations", m.iterations);
  w.optional("warmup", m.warmup);
  w.optional("iterations_note", m.iterations_note);
  w.optional("window", m.window);
  w.optional("baseline_precision", m.baseline_precision);
  w.optional("trials_per_precision", m.trials_per_precision);
  w.optional("schedule", m.schedule);
  w.optional("seed", m.seed);
  w.optional("idle_window_s", m.idle_window_s);
  w.optional("min_decode_window_s", m.min_decode_window_s);
  w.optional("target_ci_pt", m.target_ci_pt);
  w.optional("ci_confidence", m.ci_confidence);
  w.optional("stopping_rule", m.stopping_rule);
  return w.take();
}

OrderedJson results_json(const Results& x, bool v12) {
  JsonWriter w(v12);
  w.nullable("energy_per_token_mj", x.energy_per_token_mj);
  w.put("basis", to_string(x.basis));
  w.nullable("total_energy_joules", x.total_energy_joules);
  w.nullable("tokens_generated", x.tokens_generated);
  w.nullable("fp16_energy_per_token_mj", x.fp16_energy_per_token_mj);
  w.nullable("vs_fp16_energy_pct", x.vs_fp16_energy_pct);
  w.nullable("avg_power_watts", x.avg_power_watts);
  w.nullable("throughput_tokens_per_s", x.throughput_tokens_per_s);
  if (v12) {
    w.nullable("net_energy_per_token_mj", x.net_energy_per_token_mj);
    w.nullable("idle_power_watts", x.idle_power_watts);
  }
  w.optional("energy_basis", x.energy_basis);
  // A Server report has no prefill phase of its own (prefills run inside the steady-state window): null.
  if (x.prefill) {
    w.put("prefill", phase_json(*x.prefill));
  } else if (v12) {
    w.put("prefill", nullptr);
  }
  if (x.decode) w.put("decode", phase_json(*x.decode));
  w.optional("energy_per_total_token_mj", x.energy_per_total_token_mj);
  w.optional("energy_per_request_j", x.energy_per_request_j);
  w.optional("note", x.note);
  return w.take();
}

OrderedJson spread_json(const Spread& s) {
  JsonWriter w(true);
  w.nullable("mean", s.mean);
  w.nullable("sd", s.sd);
  w.nullable("cv_pct", s.cv_pct);
  w.nullable("ci95_low", s.ci95_low);
  w.nullable("ci95_high", s.ci95_high);
  return w.take();
}

OrderedJson statistics_json(const Statistics& s) {
  JsonWriter w(true);
  w.put("n_trials", s.n_trials);
  w.put("n_failed", s.n_failed);
  w.optional("n_cancelled", s.n_cancelled);
  if (s.throughput_tokens_per_s) w.put("throughput_tokens_per_s", spread_json(*s.throughput_tokens_per_s));
  w.put("energy_per_token_mj", spread_json(s.energy_per_token_mj));
  w.put("vs_fp16_energy_pct", detail::paired_delta_json(s.vs_fp16_energy_pct));
  return w.take();
}

OrderedJson quality_json(const QualitySection& q, bool v12) {
  JsonWriter w(v12);
  w.put("metric", q.metric);
  w.put("basis", q.basis);
  w.nullable("value", q.value);
  w.nullable("fp16_value", q.fp16_value);
  w.nullable("delta_vs_fp16_pct", q.delta_vs_fp16_pct);
  w.nullable("delta_vs_fp16_pct_se", q.delta_vs_fp16_pct_se);
  w.nullable("mean_nll", q.mean_nll);
  w.nullable("tokens_evaluated", q.tokens_evaluated);
  w.nullable("windows", q.windows);
  w.nullable("seq_len", q.seq_len);
  if (q.corpus) {
    w.put("corpus", OrderedJson{{"name", q.corpus->name}, {"bytes", q.corpus->bytes}, {"sha256", q.corpus->sha256}});
  } else if (v12) {
    w.put("corpus", nullptr);
  }
  w.nullable("kld", q.kld);
  w.nullable("kld_se", q.kld_se);
  w.nullable("kld_p99", q.kld_p99);
  w.nullable("top1_agreement_pct", q.top1_agreement_pct);
  if (q.policy) {
    w.put("policy", OrderedJson{{"seq_len", q.policy->seq_len}, {"stride", q.policy->stride}, {"add_bos", q.policy->add_bos}});
  }
  w.optional("baseline_precision", q.baseline_precision);
  w.optional("note", q.note);
  return w.take();
}

}  // namespace

std::string_view to_string(WeightsKind kind) noexcept {
  switch (kind) {
    case WeightsKind::synthetic: return "synthetic";
    case WeightsKind::trained_fixture: return "trained-fixture";
    case WeightsKind::real: return "real";
  }
  return "real";
}

Result<WeightsKind> parse_weights_kind(std::string_view text) {
  for (WeightsKind kind : {WeightsKind::synthetic, WeightsKind::trained_fixture, WeightsKind::real}) {
    if (text == to_string(kind)) return kind;
  }
  return unexpected(ErrorCode::invalid_argument,
                    fmt::format("{} is not a weights kind (synthetic, trained-fixture, real)", quoted_input(text)));
}

std::string_view to_string(ResultBasis basis) noexcept {
  switch (basis) {
    case ResultBasis::measured: return "measured";
    case ResultBasis::interpolated: return "interpolated";
    case ResultBasis::extrapolated: return "extrapolated";
    case ResultBasis::unavailable: return "unavailable";
  }
  return "unavailable";
}

Result<ResultBasis> parse_result_basis(std::string_view text) {
  for (ResultBasis basis : {ResultBasis::measured, ResultBasis::interpolated, ResultBasis::extrapolated,
                            ResultBasis::unavailable}) {
    if (text == to_string(basis)) return basis;
  }
  return unexpected(ErrorCode::invalid_argument,
                    fmt::format("{} is not a basis (measured, interpolated, extrapolated, unavailable)", quoted_input(text)));
}

std::optional<double> EnergyReport::delta_from_energies() const {
  const auto& e = results.energy_per_token_mj;
  const auto& base = results.fp16_energy_per_token_mj;
  if (!e || !base || !(*e > 0.0) || !(*base > 0.0)) return std::nullopt;
  return (*e - *base) / *base * 100.0;
}

std::string EnergyReport::baseline_precision() const {
  return measurement.baseline_precision.value_or("FP16");
}

Result<EnergyReport> energy_report_from_json(const OrderedJson& document, std::string_view source) {
  return detail::read_document<EnergyReport>(document, source, read_report);
}

OrderedJson to_json(const EnergyReport& r) {
  const bool v12 = r.is_v1_2();
  JsonWriter w(v12);
  w.put("schema_version", r.schema_version);
  w.put("benchmark", r.benchmark);
  w.optional("follows_mlcommons_energy_reporting_conventions", r.follows_mlcommons_energy_reporting_conventions);
  w.optional("certified_benchmark_result", r.certified_benchmark_result);
  w.put("scenario", r.scenario);
  w.optional("scenario_note", r.scenario_note);
  w.optional("timestamp_utc", r.timestamp_utc);
  w.optional("measurement_source", r.measurement_source);
  w.optional("share_url", r.share_url);
  if (r.provenance) w.put("provenance", provenance_json(*r.provenance));
  w.put("system_under_test", system_json(r.system_under_test));
  if (r.engine) w.put("engine", engine_json(*r.engine));
  w.put("workload", workload_json(r.workload, v12));
  w.put("measurement", measurement_json(r.measurement));
  if (v12 || !r.software.empty()) w.put("software", r.software);
  if (r.environment) w.put("environment", detail::environment_json(*r.environment));
  w.put("results", results_json(r.results, v12));
  if (r.statistics) w.put("statistics", statistics_json(*r.statistics));
  if (r.trials) {
    OrderedJson trials = OrderedJson::array();
    for (const TrialReport& t : *r.trials) {
      OrderedJson trial{{"repetition", t.repetition},
                        {"block", t.block},
                        {"order_index", t.order_index},
                        {"status", t.status},
                        {"reason", t.reason}};
      if (t.warmup) trial["warmup"] = *t.warmup;
      trial["prefill"] = window_json(t.prefill);
      trial["decode"] = window_json(t.decode);
      trials.push_back(std::move(trial));
    }
    w.put("trials", std::move(trials));
  }
  if (r.uncertainty) {
    JsonWriter u(true);
    u.nullable("edge_error_pct_max", r.uncertainty->edge_error_pct_max);
    u.nullable("trace_vs_counter_pct_max", r.uncertainty->trace_vs_counter_pct_max);
    u.nullable("counter_update_period_s", r.uncertainty->counter_update_period_s);
    u.optional("edges", r.uncertainty->edges);
    u.optional("edge_corrections_skipped", r.uncertainty->edge_corrections_skipped);
    w.put("uncertainty", u.take());
  }
  if (r.quality) w.put("quality", quality_json(*r.quality, v12));
  return w.take();
}

Result<EnergyReport> read_energy_report(const std::filesystem::path& path) {
  auto document = read_json_file(path);
  if (!document) return document.error();
  return energy_report_from_json(*document, path.string());
}

Result<void> write_energy_report(const std::filesystem::path& path, const EnergyReport& report) {
  const OrderedJson document = to_json(report);
  const std::vector<SchemaProblem> problems = validate_energy_json(document);
  if (!problems.empty()) {
    return unexpected(ErrorCode::internal, fmt::format("{} not written: the report does not match its schema:\n{}",
                                                       path.string(), describe(problems)));
  }
  return write_file_atomic(path, document.dump(2) + "\n");
}

}  // namespace ecocompute::report
