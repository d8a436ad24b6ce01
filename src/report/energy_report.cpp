// Building energy.json and run.json from a RunResult: which trial values enter which field.
#include "report/energy_report.hpp"

#include <sys/utsname.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "report/energy_schema.hpp"
#include "report/environment_fingerprint.hpp"
#include "util/file_io.hpp"
#include "util/log.hpp"

namespace ecocompute::report {
namespace {

using protocol::Condition;
using protocol::RunResult;
using protocol::TrialResult;
using protocol::WindowResult;

template <typename T>
OrderedJson or_null(const std::optional<T>& value) {
  return value ? OrderedJson(*value) : OrderedJson(nullptr);
}
OrderedJson or_null(const std::optional<Joules>& value) { return value ? OrderedJson(value->value) : OrderedJson(nullptr); }
OrderedJson or_null(const std::optional<Watts>& value) { return value ? OrderedJson(value->value) : OrderedJson(nullptr); }
OrderedJson text_or_null(const std::string& text) { return text.empty() ? OrderedJson(nullptr) : OrderedJson(text); }

// A metric's mean over the condition's ok trials, when at least one trial had it.
std::optional<double> metric_mean(const protocol::ConditionSummary* summary, std::string_view name) {
  if (summary == nullptr) return std::nullopt;
  const protocol::MetricSummary* metric = summary->find(name);
  if (metric == nullptr || metric->summary.n == 0) return std::nullopt;
  return metric->summary.mean;
}

const protocol::ConditionSummary* find_summary(const RunResult& run, std::size_t condition) {
  for (const auto& summary : run.summaries) {
    if (summary.condition == condition) return &summary;
  }
  return nullptr;
}

// The baseline condition every candidate of this prompt length is compared with.
const Condition* find_baseline(const RunResult& run, const Condition& condition) {
  for (const Condition& c : run.conditions) {
    if (c.is_baseline && c.prompt_tokens == condition.prompt_tokens) return &c;
  }
  return nullptr;
}

std::vector<const TrialResult*> trials_of(const RunResult& run, std::size_t condition) {
  std::vector<const TrialResult*> out;
  for (const TrialResult& trial : run.trials) {
    if (trial.condition == condition) out.push_back(&trial);
  }
  return out;
}

std::vector<std::string> throttle_reasons(const meter::Measurement& m) {
  std::set<std::string> names(m.at_begin.throttle_reason_names.begin(), m.at_begin.throttle_reason_names.end());
  names.insert(m.at_end.throttle_reason_names.begin(), m.at_end.throttle_reason_names.end());
  return {names.begin(), names.end()};
}

OrderedJson window_json(const std::optional<WindowResult>& window) {
  if (!window) return nullptr;
  const WindowResult& w = *window;
  OrderedJson j = OrderedJson::object();
  j["energy_j"] = or_null(w.energy_gross);
  j["duration_s"] = w.measurement.duration.value;
  j["tokens"] = w.tokens;
  j["energy_per_token_mj"] = or_null(w.energy_per_token_gross_mj());
  j["avg_power_w"] = or_null(w.average_power());
  j["edge_uncertainty_j"] = or_null(w.measurement.edge_uncertainty);
  j["trace_energy_j"] = or_null(w.measurement.trace_energy);
  j["trace_vs_counter_pct"] = or_null(w.measurement.trace_vs_counter_pct);
  j["throttle_reasons"] = throttle_reasons(w.measurement);
  j["status"] = meter::to_string(w.measurement.status);
  return j;
}

using WindowMember = std::optional<WindowResult> TrialResult::*;

// A failure's reason can carry a chain of causes; the schema bounds every text at 16384 characters.
constexpr std::size_t max_reason_chars = 4000;

std::string now_utc() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

// One phase over the ok trials: per-trial means from the protocol's summary, sums from the windows.
OrderedJson phase_json(std::string_view phase, WindowMember member, const std::vector<const TrialResult*>& ok,
                       const protocol::ConditionSummary* summary, bool measured) {
  double energy = 0.0;
  double duration = 0.0;
  std::int64_t tokens = 0;
  bool all_energy = measured;
  for (const TrialResult* trial : ok) {
    const std::optional<WindowResult>& w = trial->*member;
    if (!w) continue;
    duration += w->measurement.duration.value;
    tokens += w->tokens;
    if (w->energy_gross) energy += w->energy_gross->value;
    else all_energy = false;
  }
  auto energy_metric = [&](std::string_view suffix) -> OrderedJson {
    if (!measured) return nullptr;
    return or_null(metric_mean(summary, fmt::format("{}_{}", phase, suffix)));
  };
  OrderedJson j = OrderedJson::object();
  j["energy_per_token_mj"] = energy_metric("energy_per_token_gross_mj");
  j["net_energy_per_token_mj"] = energy_metric("energy_per_token_net_mj");
  j["tokens_per_s"] = or_null(metric_mean(summary, fmt::format("{}_throughput_tokens_per_s", phase)));
  j["avg_power_w"] = energy_metric("avg_power_w");
  j["energy_j"] = all_energy && !ok.empty() ? OrderedJson(energy) : OrderedJson(nullptr);
  j["duration_s"] = duration;
  j["tokens"] = tokens;
  return j;
}

OrderedJson summary_json(const std::optional<protocol::Summary>& s, bool with_cv, bool with_n) {
  const bool has = s && s->n > 0;
  OrderedJson j = OrderedJson::object();
  j["mean"] = has ? OrderedJson(s->mean) : OrderedJson(nullptr);
  j["sd"] = has ? or_null(s->sd) : OrderedJson(nullptr);
  if (with_cv) j["cv_pct"] = has ? or_null(s->cv_pct) : OrderedJson(nullptr);
  j["ci95_low"] = has ? or_null(s->ci_low) : OrderedJson(nullptr);
  j["ci95_high"] = has ? or_null(s->ci_high) : OrderedJson(nullptr);
  if (with_n) j["n_pairs"] = s ? s->n : 0;
  return j;
}

std::string measurement_method(std::string_view source) {
  if (source == "direct-nvml") {
    return "GPU energy counter (nvmlDeviceGetTotalEnergyConsumption) differenced at window edges after the engine "
           "synchronized; the driver's power samples give the trace (cross-check only)";
  }
  if (source == "rapl") return "RAPL energy counter differenced at window edges after the engine synchronized";
  return "no energy source was readable: throughput and quality only";
}

const quality::QualityResult* find_quality(const RunContext& context, std::string_view precision) {
  if (context.weights == WeightsKind::synthetic) return nullptr;
  for (const auto& q : context.quality) {
    if (q.precision == precision) return &q;
  }
  return nullptr;
}

OrderedJson quality_json(const quality::QualityResult& q) {
  auto estimate = [](const std::optional<quality::Estimate>& e, bool se) -> OrderedJson {
    if (!e) return nullptr;
    return se ? e->standard_error : e->value;
  };
  OrderedJson j = OrderedJson::object();
  j["metric"] = "perplexity";
  j["basis"] = "measured";
  j["value"] = q.perplexity.value;
  j["fp16_value"] = q.baseline_perplexity.value;
  j["delta_vs_fp16_pct"] = q.delta_ppl_pct.value;
  j["delta_vs_fp16_pct_se"] = q.delta_ppl_pct.standard_error;
  j["mean_nll"] = q.mean_nll;
  j["tokens_evaluated"] = q.tokens_evaluated;
  j["windows"] = q.windows;
  j["seq_len"] = q.policy.seq_len;
  j["corpus"] = {{"name", q.corpus.name}, {"bytes", q.corpus.bytes}, {"sha256", q.corpus.sha256}};
  j["kld"] = estimate(q.kld, false);
  j["kld_se"] = estimate(q.kld, true);
  j["kld_p99"] = or_null(q.kld_p99);
  j["top1_agreement_pct"] = estimate(q.top1_agreement_pct, false);
  j["policy"] = {{"seq_len", q.policy.seq_len}, {"stride", q.policy.stride}, {"add_bos", q.policy.add_bos}};
  j["baseline_precision"] = q.baseline;
  j["note"] = "Scored after the energy windows, with the same weights as measured; only deltas against the "
              "same-run baseline are comparable across runs, and only on the same corpus.sha256.";
  return j;
}

OrderedJson environment_json(const RunContext& context, const std::string& engine_commit) {
  const std::optional<meter::GpuInfo>& gpu = context.sources.gpu;
  OrderedJson j = OrderedJson::object();
  j["fingerprint"] = "";
  j["gpu_name"] = gpu ? text_or_null(gpu->name) : OrderedJson(nullptr);
  j["gpu_uuid"] = gpu ? text_or_null(gpu->uuid) : OrderedJson(nullptr);
  j["vbios"] = gpu ? text_or_null(gpu->vbios) : OrderedJson(nullptr);
  j["nvidia_driver"] = text_or_null(context.sources.driver_version);
  j["cuda_driver"] = text_or_null(context.sources.cuda_driver_version);
  j["power_limit_w"] = gpu ? or_null(gpu->power_limit) : OrderedJson(nullptr);
  j["ecc"] = gpu ? or_null(gpu->ecc_enabled) : OrderedJson(nullptr);
  j["engine_commit"] = engine_commit;
  j["ecocompute_commit"] = context.ecocompute_commit;
  j["host"] = context.host;
  j["fingerprint"] = environment_fingerprint(j);
  return j;
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
  for (WeightsKind k : {WeightsKind::synthetic, WeightsKind::trained_fixture, WeightsKind::real}) {
    if (text == to_string(k)) return k;
  }
  return unexpected(ErrorCode::invalid_argument,
                    "unknown weights kind '" + std::string(text) + "' (expected synthetic, trained-fixture or real)");
}

std::string_view measurement_source(std::string_view meter_source) noexcept {
  if (meter_source == "nvml-energy-counter") return "direct-nvml";
  if (meter_source == "rapl") return "rapl";
  return "none";
}

std::string report_file_name(const Condition& condition) {
  std::string label = condition.label();
  std::replace(label.begin(), label.end(), '/', '-');
  return "energy-" + label + ".json";
}

Result<OrderedJson> build_energy_json(const RunResult& run, std::size_t condition_index, const RunContext& context) {
  ECO_CHECK(condition_index < run.conditions.size(), "build_energy_json: no such condition");
  const Condition& condition = run.conditions[condition_index];
  const protocol::ConditionSetup* setup = nullptr;
  for (const auto& s : run.setups) {
    if (s.condition == condition_index) setup = &s;
  }
  if (setup == nullptr || !setup->loaded || !setup->model || !setup->engine) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("{} has no report: its engine never loaded ({})", condition.label(),
                                  setup != nullptr && !setup->failure.empty() ? setup->failure : "no setup"));
  }
  const engine::ModelInfo& model = *setup->model;
  const engine::EngineDescription& engine = *setup->engine;

  std::string model_sha256;
  if (auto it = context.model_sha256.find(condition.precision); it != context.model_sha256.end()) {
    model_sha256 = it->second;
  } else {
    auto hashed = sha256_file(model.path);
    if (!hashed) return Error(hashed.error().code(), "cannot hash the measured model of " + condition.label(), hashed.error());
    model_sha256 = *hashed;
  }

  const std::vector<const TrialResult*> trials = trials_of(run, condition_index);
  std::vector<const TrialResult*> ok;
  for (const TrialResult* t : trials) {
    if (t->is_ok()) ok.push_back(t);
  }
  const protocol::ConditionSummary* summary = find_summary(run, condition_index);
  const std::string_view source = measurement_source(run.meter_source);
  const std::optional<double> decode_mean = metric_mean(summary, "decode_energy_per_token_gross_mj");
  const bool measured = source != "none" && run.meter_measures_energy && decode_mean.has_value();

  OrderedJson doc = OrderedJson::object();
  doc["schema_version"] = energy_schema_version;
  doc["benchmark"] = "ecocompute-energy-methodology";
  doc["certified_benchmark_result"] = false;
  doc["scenario"] = "SingleStream";
  doc["scenario_note"] = "Batch 1, greedy decoding; not run under MLPerf LoadGen; not a certified benchmark result.";
  doc["timestamp_utc"] = run.started_utc.empty() ? now_utc() : run.started_utc;
  doc["measurement_source"] = source;
  doc["provenance"] = {{"tool", "ecocompute"},
                       {"ecocompute_version", context.ecocompute_version},
                       {"ecocompute_commit", context.ecocompute_commit},
                       {"run_id", context.run_id}};

  const std::optional<meter::GpuInfo>& gpu = context.sources.gpu;
  doc["system_under_test"] = {{"gpu", gpu ? gpu->name : "none"},
                              {"gpu_arch", gpu && !gpu->arch.empty() ? gpu->arch : "none"},
                              {"accelerator_count", gpu ? 1 : 0},
                              {"host", context.host}};
  if (!context.cpu.empty()) doc["system_under_test"]["cpu"] = context.cpu;

  doc["engine"] = {{"name", engine.name},
                   {"version", engine.version},
                   {"commit", engine.commit},
                   {"backend", engine.backend},
                   {"device", engine.device},
                   {"n_gpu_layers", engine.n_gpu_layers},
                   {"n_ctx", engine.n_ctx},
                   {"n_batch", engine.n_batch},
                   {"n_threads", engine.n_threads},
                   {"flash_attention", engine.flash_attention}};

  OrderedJson workload = OrderedJson::object();
  workload["model_name"] = context.model_name.empty() ? model.name : context.model_name;
  workload["params_b"] = model.n_params > 0 ? OrderedJson(static_cast<double>(model.n_params) / 1e9) : OrderedJson(nullptr);
  workload["precision"] = condition.precision;
  workload["batch_size"] = 1;
  workload["context_length"] = engine.n_ctx;
  workload["weights"] = to_string(context.weights);
  workload["gguf_type"] = model.gguf_type.empty() ? condition.precision : model.gguf_type;
  workload["precision_class"] = model.precision_class;
  workload["bits_per_weight"] = model.bits_per_weight > 0 ? OrderedJson(model.bits_per_weight) : OrderedJson(nullptr);
  workload["model_sha256"] = model_sha256;
  workload["prompt_tokens"] = setup->prompt_token_count;
  workload["decoding"] = "greedy";
  workload["architecture"] = model.architecture;
  workload["model_file"] = model.path.filename().string();
  workload["model_size_bytes"] = model.size_bytes;
  workload["n_params"] = model.n_params;
  doc["workload"] = std::move(workload);

  const protocol::IterationDecision& decision = run.iteration_decision;
  double rate_sum = 0.0;
  int rate_n = 0;
  for (const TrialResult* t : ok) {
    if (t->decode) {
      rate_sum += t->decode->measurement.achieved_sample_rate_hz;
      ++rate_n;
    }
  }
  doc["measurement"] = {
      {"method", measurement_method(source)},
      {"sample_rate_hz", rate_n > 0 ? std::llround(rate_sum / rate_n) : 0},
      {"tokens_per_run", run.design.tokens_per_iteration},
      {"iterations", decision.iterations},
      {"warmup", run.design.warmups},
      {"iterations_note",
       fmt::format("Iterations per decode window, each a reset, a prefill of the prompt and {} generated tokens; "
                   "{} independent trials per precision, interleaved with the baseline. {}",
                   run.design.tokens_per_iteration, run.design.trials, decision.explanation)},
      {"window", "decode"},
      {"baseline_precision", run.design.baseline},
      {"trials_per_precision", run.design.trials},
      {"schedule", protocol::to_string(run.schedule.order)},
      {"seed", std::to_string(run.schedule.seed)},
      {"idle_window_s", run.design.idle_window.value},
      {"min_decode_window_s", decision.required_decode_window.value}};

  doc["software"] = {{"ecocompute", context.ecocompute_version},
                     {"ecocompute_commit", context.ecocompute_commit},
                     {"compiler", context.compiler},
                     {"engine", engine.name},
                     {"engine_version", engine.version},
                     {"engine_commit", engine.commit},
                     {"nvidia_driver", text_or_null(context.sources.driver_version)},
                     {"cuda_driver", text_or_null(context.sources.cuda_driver_version)}};
  doc["environment"] = environment_json(context, engine.commit);

  // Results: 1.1's fields with their 1.1 meaning, over this run's ok trials.
  const OrderedJson decode = phase_json("decode", &TrialResult::decode, ok, summary, measured);
  const OrderedJson prefill = phase_json("prefill", &TrialResult::prefill, ok, summary, measured);
  const Condition* baseline = find_baseline(run, condition);
  const bool is_baseline = baseline != nullptr && baseline->index == condition.index;
  const std::optional<double> baseline_mean =
      baseline != nullptr ? metric_mean(find_summary(run, baseline->index), "decode_energy_per_token_gross_mj")
                          : std::nullopt;
  const protocol::PairedComparison* comparison =
      is_baseline ? nullptr : run.find_comparison(condition_index, "decode_energy_per_token_gross_mj");
  const std::optional<protocol::Summary> delta =
      comparison != nullptr ? std::optional(comparison->delta_pct) : std::nullopt;
  const double decode_duration = decode["duration_s"].get<double>();
  const std::int64_t decode_tokens = decode["tokens"].get<std::int64_t>();

  OrderedJson results = OrderedJson::object();
  results["energy_per_token_mj"] = measured ? or_null(decode_mean) : OrderedJson(nullptr);
  results["basis"] = measured ? "measured" : "unavailable";
  results["total_energy_joules"] = measured ? decode["energy_j"] : OrderedJson(nullptr);
  results["tokens_generated"] = decode_tokens;
  results["fp16_energy_per_token_mj"] = measured ? or_null(baseline_mean) : OrderedJson(nullptr);
  results["vs_fp16_energy_pct"] =
      measured && delta && delta->n > 0 ? OrderedJson(delta->mean) : OrderedJson(nullptr);
  results["avg_power_watts"] = measured && decode["energy_j"].is_number() && decode_duration > 0
                                   ? OrderedJson(decode["energy_j"].get<double>() / decode_duration)
                                   : OrderedJson(nullptr);
  results["throughput_tokens_per_s"] =
      decode_duration > 0 ? OrderedJson(static_cast<double>(decode_tokens) / decode_duration) : OrderedJson(nullptr);
  results["net_energy_per_token_mj"] = decode["net_energy_per_token_mj"];
  results["idle_power_watts"] = measured ? or_null(run.idle.power) : OrderedJson(nullptr);
  results["energy_basis"] = "gross";
  results["prefill"] = prefill;
  results["decode"] = decode;
  results["note"] =
      measured ? "energy_per_token_mj: mean over valid trials of gross decode-window energy per generated token; "
                 "vs_fp16_energy_pct: mean of the paired per-block differences against the same-run baseline "
                 "(fp16_energy_per_token_mj, which is the baseline precision's); net figures subtract idle power."
               : "No energy source read the windows: energy figures are null; throughput and quality are measured.";
  doc["results"] = std::move(results);

  const protocol::MetricSummary* energy_metric =
      summary != nullptr ? summary->find("decode_energy_per_token_gross_mj") : nullptr;
  OrderedJson statistics = OrderedJson::object();
  statistics["n_trials"] = ok.size();
  statistics["n_failed"] = trials.size() - ok.size();
  statistics["energy_per_token_mj"] =
      summary_json(measured && energy_metric != nullptr ? std::optional(energy_metric->summary) : std::nullopt, true,
                   false);
  statistics["vs_fp16_energy_pct"] = summary_json(measured ? delta : std::nullopt, false, true);
  doc["statistics"] = std::move(statistics);

  OrderedJson trial_list = OrderedJson::array();
  for (const TrialResult* t : trials) {
    trial_list.push_back({{"repetition", t->repetition},
                          {"block", t->block},
                          {"order_index", t->index},
                          {"status", protocol::to_string(t->status)},
                          {"reason", t->reason.substr(0, max_reason_chars)},
                          {"prefill", window_json(t->prefill)},
                          {"decode", window_json(t->decode)}});
  }
  doc["trials"] = std::move(trial_list);

  // Uncertainty budget over the ok trials' windows.
  std::optional<double> edge_max;
  std::optional<double> trace_max;
  std::optional<double> update_period;
  for (const TrialResult* t : ok) {
    for (const std::optional<WindowResult>* w : {&t->prefill, &t->decode}) {
      if (!*w) continue;
      if (auto e = (*w)->edge_uncertainty_pct()) edge_max = std::max(edge_max.value_or(0.0), *e);
      if (auto tr = (*w)->measurement.trace_vs_counter_pct) trace_max = std::max(trace_max.value_or(0.0), std::fabs(*tr));
      if (auto p = (*w)->measurement.counter_update_period; p && !update_period) update_period = p->value;
    }
  }
  if (!update_period && decision.update_period_measured) update_period = decision.counter_update_period.value;
  doc["uncertainty"] = {{"edge_error_pct_max", measured ? or_null(edge_max) : OrderedJson(nullptr)},
                        {"trace_vs_counter_pct_max", measured ? or_null(trace_max) : OrderedJson(nullptr)},
                        {"counter_update_period_s", or_null(update_period)}};

  if (const quality::QualityResult* q = find_quality(context, condition.precision)) doc["quality"] = quality_json(*q);
  return doc;
}

OrderedJson build_run_summary(const RunResult& run, const RunContext& context, const std::vector<WrittenReport>& reports) {
  OrderedJson doc = OrderedJson::object();
  doc["schema_version"] = "ecocompute-run/1.0";
  doc["run_id"] = context.run_id;
  doc["started_utc"] = run.started_utc;
  doc["finished_utc"] = run.finished_utc;
  doc["cancelled"] = run.cancelled;
  doc["measurement_source"] = measurement_source(run.meter_source);
  doc["meter_device"] = run.meter_device;
  std::string engine_commit;
  for (const auto& s : run.setups) {
    if (s.engine) engine_commit = s.engine->commit;
  }
  doc["environment_fingerprint"] = environment_json(context, engine_commit)["fingerprint"];
  doc["weights"] = to_string(context.weights);

  std::vector<std::int64_t> lengths(run.design.prompt.lengths_tokens.begin(), run.design.prompt.lengths_tokens.end());
  doc["design"] = {{"model", run.design.model.filename().string()},
                   {"baseline", run.design.baseline},
                   {"candidates", run.design.candidates},
                   {"trials_per_precision", run.design.trials},
                   {"warmups", run.design.warmups},
                   {"tokens_per_run", run.design.tokens_per_iteration},
                   {"iterations_requested", run.iteration_decision.requested_iterations},
                   {"iterations", run.iteration_decision.iterations},
                   {"prompt_lengths_tokens", lengths},
                   {"schedule", protocol::to_string(run.schedule.order)},
                   {"seed", std::to_string(run.schedule.seed)},
                   {"iterations_explanation", run.iteration_decision.explanation}};

  OrderedJson order = OrderedJson::array();
  OrderedJson trials = OrderedJson::array();
  for (const TrialResult& t : run.trials) {
    const std::string label = t.condition < run.conditions.size() ? run.conditions[t.condition].label() : t.precision;
    order.push_back(fmt::format("{} #{}", label, t.repetition + 1));
    trials.push_back({{"order_index", t.index},
                      {"condition", label},
                      {"repetition", t.repetition},
                      {"block", t.block},
                      {"status", protocol::to_string(t.status)},
                      {"reason", t.reason}});
  }
  doc["order"] = std::move(order);
  doc["trials"] = std::move(trials);
  doc["idle"] = {{"power_w", or_null(run.idle.power)}, {"failure", run.idle.failure}};

  OrderedJson conditions = OrderedJson::array();
  for (const Condition& c : run.conditions) {
    OrderedJson entry = {{"label", c.label()},
                         {"precision", c.precision},
                         {"is_baseline", c.is_baseline},
                         {"prompt_tokens", c.prompt_tokens},
                         {"report", nullptr},
                         {"failure", ""}};
    for (const WrittenReport& r : reports) {
      if (r.condition != c.index) continue;
      if (!r.path.empty()) entry["report"] = r.path.filename().string();
      entry["failure"] = r.failure;
      if (r.document) {
        const OrderedJson& d = *r.document;
        entry["n_trials"] = d["statistics"]["n_trials"];
        entry["n_failed"] = d["statistics"]["n_failed"];
        entry["energy_per_token_mj"] = d["results"]["energy_per_token_mj"];
        entry["vs_fp16_energy_pct"] = d["statistics"]["vs_fp16_energy_pct"];
        entry["throughput_tokens_per_s"] = d["results"]["throughput_tokens_per_s"];
        if (d.contains("quality")) {
          entry["delta_ppl_pct"] = d["quality"]["delta_vs_fp16_pct"];
          entry["kld"] = d["quality"]["kld"];
        }
      }
    }
    conditions.push_back(std::move(entry));
  }
  doc["conditions"] = std::move(conditions);
  doc["warnings"] = run.warnings;
  return doc;
}

Result<void> write_validated_energy_json(const std::filesystem::path& path, const OrderedJson& document) {
  const std::vector<SchemaProblem> problems = validate_energy_json(document);
  if (!problems.empty()) {
    return unexpected(ErrorCode::internal, fmt::format("{} not written: the report does not match its schema:\n{}",
                                                       path.string(), describe(problems)));
  }
  return write_file_atomic(path, document.dump(2) + "\n");
}

Result<std::vector<WrittenReport>> write_run_reports(const RunResult& run, const RunContext& context,
                                                     const std::filesystem::path& out_dir) {
  std::vector<WrittenReport> written;
  for (const Condition& condition : run.conditions) {
    WrittenReport entry;
    entry.condition = condition.index;
    entry.label = condition.label();
    auto document = build_energy_json(run, condition.index, context);
    if (!document) {
      entry.failure = document.error().describe();
      written.push_back(std::move(entry));
      continue;
    }
    const std::filesystem::path path = out_dir / report_file_name(condition);
    if (auto result = write_validated_energy_json(path, *document); !result) {
      if (result.error().code() == ErrorCode::io) return result.error();
      log::error("{}", result.error().describe());
      entry.failure = result.error().describe();
      written.push_back(std::move(entry));
      continue;
    }
    entry.path = path;
    entry.document = std::move(*document);
    written.push_back(std::move(entry));
  }
  const OrderedJson summary = build_run_summary(run, context, written);
  if (auto result = write_file_atomic(out_dir / "run.json", summary.dump(2) + "\n"); !result) return result.error();
  return written;
}

std::string describe_host() {
  struct utsname name {};
  if (::uname(&name) != 0) return "unknown";
  return fmt::format("{}-{}-{}", name.sysname, name.release, name.machine);
}

std::string cpu_model_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) break;
      std::string value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(" \t"));
      return value;
    }
  }
  return "";
}

}  // namespace ecocompute::report
