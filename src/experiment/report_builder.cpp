// Building a condition's EnergyReport, section by section, from the protocol's RunResult.
#include "experiment/report_builder.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include <fmt/format.h>

#include "report/environment_fingerprint.hpp"
#include "report/throttled_trials.hpp"
#include "util/check.hpp"
#include "util/clock.hpp"
#include "util/file_io.hpp"
#include "util/json.hpp"

namespace ecocompute::experiment {
namespace {

using protocol::Condition;
using protocol::RunResult;
using protocol::TrialResult;
using protocol::WindowResult;

// A failure's reason can carry a chain of causes; the schema bounds every text at 16384 characters.
constexpr std::size_t max_reason_chars = 4000;

constexpr std::string_view kDecodeEnergy = "decode_energy_per_token_gross_mj";
constexpr std::string_view kDecodeThroughput = "decode_throughput_tokens_per_s";

template <typename Q>
std::optional<double> value_of(const std::optional<Q>& quantity) {
  return quantity ? std::optional<double>(quantity->value) : std::nullopt;
}

std::optional<std::string> text_or_absent(const std::string& text) {
  return text.empty() ? std::nullopt : std::optional<std::string>(text);
}

// Everything about one condition that its sections read.
struct ConditionView {
  const RunResult& run;
  const Condition& condition;
  const protocol::ConditionSetup& setup;
  std::vector<const TrialResult*> trials;     // every trial of the condition, in run order
  std::vector<const TrialResult*> ok;         // those in the statistics
  const protocol::ConditionSummary* summary;  // over `ok`; null when the protocol made none
  std::string_view source;                    // measurement_source
  bool measured;                              // a real energy source read the valid windows

  // Trials that failed (throttled, invalid window, engine failure); interrupted and never-run ones are not.
  [[nodiscard]] std::int64_t n_failed() const {
    return std::count_if(trials.begin(), trials.end(), [](const TrialResult* t) { return t->failed(); });
  }

  // A metric's mean over the ok trials, when at least one trial had it.
  [[nodiscard]] std::optional<double> mean(std::string_view metric) const { return metric_mean(summary, metric); }

  static std::optional<double> metric_mean(const protocol::ConditionSummary* summary, std::string_view metric) {
    if (summary == nullptr) return std::nullopt;
    const protocol::MetricSummary* m = summary->find(metric);
    if (m == nullptr || m->summary.n == 0) return std::nullopt;
    return m->summary.mean;
  }
};

const protocol::ConditionSummary* find_summary(const RunResult& run, std::size_t condition) {
  for (const auto& summary : run.summaries) {
    if (summary.condition == condition) return &summary;
  }
  return nullptr;
}

// The baseline condition every candidate of this prompt length and batch is compared with.
const Condition* find_baseline(const RunResult& run, const Condition& condition) {
  for (const Condition& c : run.conditions) {
    if (c.is_baseline && c.prompt_tokens == condition.prompt_tokens && c.batch == condition.batch) return &c;
  }
  return nullptr;
}

std::vector<std::string> throttle_reasons(const meter::Measurement& m) {
  std::set<std::string> names(m.at_begin.throttle_reason_names.begin(), m.at_begin.throttle_reason_names.end());
  names.insert(m.at_end.throttle_reason_names.begin(), m.at_end.throttle_reason_names.end());
  return {names.begin(), names.end()};
}

std::optional<report::WindowReport> window_report(const std::optional<WindowResult>& window) {
  if (!window) return std::nullopt;
  const WindowResult& w = *window;
  report::WindowReport out;
  out.energy_j = value_of(w.energy_gross);
  out.duration_s = w.measurement.duration.value;
  out.tokens = w.tokens;
  out.energy_per_token_mj = w.energy_per_token_gross_mj();
  out.avg_power_w = value_of(w.average_power());
  out.edge_uncertainty_j = value_of(w.measurement.edge_uncertainty);
  out.trace_energy_j = value_of(w.measurement.trace_energy);
  out.trace_vs_counter_pct = w.measurement.trace_vs_counter_pct;
  if (w.measurement.energy) out.edge_method = meter::to_string(w.measurement.edge_method);
  out.counter_energy_j = value_of(w.measurement.counter_energy);
  out.edge_correction_j = value_of(w.measurement.edge_correction);
  if (!w.measurement.edge_correction_skipped.empty()) out.edge_correction_skipped = w.measurement.edge_correction_skipped;
  out.throttle_reasons = throttle_reasons(w.measurement);
  out.status = meter::to_string(w.measurement.status);
  out.per_gpu = gpu_shares(w.measurement);
  out.gpu_busy_pct = w.measurement.gpu_busy_pct;
  out.cpu_energy_j = value_of(w.measurement.cpu_energy);
  out.dram_energy_j = value_of(w.measurement.dram_energy);
  for (const Seconds& t : w.repeat_times) out.repeat_s.push_back(t.value);
  return out;
}

using WindowMember = std::optional<WindowResult> TrialResult::*;

// One phase over the ok trials: per-trial means from the protocol's summary, sums from the windows.
report::PhaseSummary phase_summary(const ConditionView& v, std::string_view phase, WindowMember member) {
  double energy = 0.0;
  bool all_energy = v.measured;
  report::PhaseSummary p;
  for (const TrialResult* trial : v.ok) {
    const std::optional<WindowResult>& w = trial->*member;
    if (!w) continue;
    p.duration_s += w->measurement.duration.value;
    p.tokens += w->tokens;
    if (w->energy_gross) {
      energy += w->energy_gross->value;
    } else {
      all_energy = false;
    }
  }
  auto energy_metric = [&](std::string_view suffix) -> std::optional<double> {
    if (!v.measured) return std::nullopt;
    return v.mean(fmt::format("{}_{}", phase, suffix));
  };
  p.energy_per_token_mj = energy_metric("energy_per_token_gross_mj");
  p.net_energy_per_token_mj = energy_metric("energy_per_token_net_mj");
  p.tokens_per_s = v.mean(fmt::format("{}_throughput_tokens_per_s", phase));
  p.avg_power_w = energy_metric("avg_power_w");
  if (all_energy && !v.ok.empty()) p.energy_j = energy;
  return p;
}

std::string measurement_method(std::string_view source) {
  if (source == "direct-nvml") {
    return "GPU energy counter (nvmlDeviceGetTotalEnergyConsumption) differenced at window edges after the engine "
           "synchronized; the driver's power samples give the trace (cross-check only)";
  }
  if (source == "rapl") return "RAPL energy counter differenced at window edges after the engine synchronized";
  return "no energy source was readable: throughput and quality only";
}

std::optional<std::string> unless_empty(const std::string& text) {
  return text.empty() ? std::nullopt : std::optional<std::string>(text);
}

report::EngineSection engine_section(const engine::EngineDescription& engine) {
  return report::EngineSection{engine.name,         engine.version, engine.commit,  engine.backend,
                               engine.device,       engine.n_gpu_layers, engine.n_ctx, engine.n_batch,
                               engine.n_threads,    engine.flash_attention, unless_empty(engine.token_choice),
                               unless_empty(engine.token_choice_note)};
}

report::Workload workload(const ConditionView& v, const ReportContext& context, std::string model_sha256) {
  const engine::ModelInfo& model = *v.setup.model;
  report::Workload w;
  w.model_name = context.model_name.empty() ? model.name : context.model_name;
  if (model.n_params > 0) w.params_b = static_cast<double>(model.n_params) / 1e9;
  w.precision = v.condition.precision;
  w.batch_size = v.condition.batch;
  w.context_length = v.setup.engine->n_ctx;
  w.weights = context.weights;
  w.gguf_type = model.gguf_type.empty() ? v.condition.precision : model.gguf_type;
  w.precision_class = model.precision_class;
  if (model.bits_per_weight > 0) w.bits_per_weight = model.bits_per_weight;
  w.model_sha256 = std::move(model_sha256);
  w.prompt_tokens = v.setup.prompt_token_count;
  w.decoding = "greedy";
  w.architecture = model.architecture;
  w.model_file = model.path.filename().string();
  w.model_size_bytes = model.size_bytes;
  w.n_params = model.n_params;
  return w;
}

report::MeasurementSection measurement_section(const ConditionView& v) {
  const protocol::Design& design = v.run.design;
  const protocol::IterationDecision& decision = v.run.decision_for(v.condition.batch);
  double rate_sum = 0.0;
  int rate_n = 0;
  for (const TrialResult* t : v.ok) {
    if (t->decode) {
      rate_sum += t->decode->measurement.achieved_sample_rate_hz;
      ++rate_n;
    }
  }
  report::MeasurementSection m;
  m.method = measurement_method(v.source);
  m.sample_rate_hz = rate_n > 0 ? std::llround(rate_sum / rate_n) : 0;
  m.tokens_per_run = design.tokens_per_iteration;
  m.iterations = decision.iterations;
  m.warmup = design.warmups;
  m.iterations_note =
      fmt::format("Iterations per decode window, each a reset, a prefill of the prompt and {} generated tokens{}; "
                  "{} independent trials per precision, interleaved with the baseline. {}",
                  design.tokens_per_iteration,
                  v.condition.batch > 1 ? fmt::format(" in each of {} parallel sequences", v.condition.batch) : "",
                  v.run.schedule.blocks, decision.explanation);
  if (!design.prefill_windows_at(v.condition.batch)) {
    *m.iterations_note += fmt::format(" No prefill window at this batch: the prompt is computed once whatever the batch, "
                                     "and its windows were measured at batch {} only.",
                                     design.batches.front());
  }
  m.window = "decode";
  m.baseline_precision = design.baseline;
  m.trials_per_precision = v.run.schedule.blocks;
  m.schedule = std::string(protocol::to_string(v.run.schedule.order));
  m.seed = std::to_string(v.run.schedule.seed);
  m.idle_window_s = design.idle_window.value;
  m.min_decode_window_s = decision.required_decode_window.value;
  if (v.run.stop) {
    m.target_ci_pt = v.run.stop->target_ci_pt;
    m.ci_confidence = v.run.stop->confidence;
    m.stopping_rule = v.run.stop->explanation;
  }
  return m;
}

OrderedJson software(const ReportContext& context, const engine::EngineDescription& engine) {
  return OrderedJson{{"ecocompute", context.ecocompute_version},
                     {"ecocompute_commit", context.ecocompute_commit},
                     {"compiler", context.compiler},
                     {"engine", engine.name},
                     {"engine_version", engine.version},
                     {"engine_commit", engine.commit},
                     {"nvidia_driver", text_or_null(context.sources.driver_version)},
                     {"cuda_driver", text_or_null(context.sources.cuda_driver_version)}};
}

// The paired ΔE of this condition against its baseline; absent for the baseline itself.
std::optional<Summary> paired_delta(const ConditionView& v) {
  const Condition* baseline = find_baseline(v.run, v.condition);
  if (baseline == nullptr || baseline->index == v.condition.index) return std::nullopt;
  const protocol::PairedComparison* comparison = v.run.find_comparison(v.condition.index, kDecodeEnergy);
  return comparison != nullptr ? std::optional(comparison->delta_pct) : std::nullopt;
}

// Results: 1.1's fields with their 1.1 meaning, over this run's ok trials.
// At batch B every generated token counts: energy_per_token_mj is per token of any sequence, and
// one sequence of n tokens costs that × n.
std::string per_sequence_note(int batch, std::int64_t tokens_per_sequence, std::optional<double> energy_per_token_mj) {
  std::string note = fmt::format(" Batch {}: tokens_generated counts every sequence's tokens ({} parallel sequences of {} "
                                 "tokens per iteration)",
                                 batch, batch, tokens_per_sequence);
  if (energy_per_token_mj) {
    note += fmt::format("; energy per sequence of {} tokens: {:.4g} J", tokens_per_sequence,
                        *energy_per_token_mj * static_cast<double>(tokens_per_sequence) / 1000.0);
  }
  return note + ".";
}

// Why a condition has no energy figure: no energy source, or a source whose windows all failed (a
// throttled or invalid trial is kept in the run with its reason but never enters a mean).
std::string unmeasured_note(const ConditionView& v) {
  const bool source_read = v.source != "none" && v.run.meter_measures_energy;
  if (!source_read) return "No energy source read the windows: energy figures are null; throughput and quality are measured.";
  return fmt::format("No valid trial: {} of {} trials failed (each one's reason is in the run's trials; --accept-throttled "
                     "counts throttled trials, flagged); the energy source read the windows, but energy figures are "
                     "null because no trial is in the statistics.",
                     v.n_failed(), v.trials.size());
}

// "Throttled trials counted: …" when the statistics hold trials the GPU throttled in (the design accepted
// them), of this condition or of the baseline it is compared with; nothing otherwise.
std::optional<std::string> throttled_trials_counted(const ConditionView& v, const Condition* baseline) {
  auto count = [&](const Condition& c, std::string name) {
    report::ThrottledCount out{std::move(name)};
    for (const TrialResult& t : v.run.trials) {
      if (t.condition != c.index || !t.is_ok()) continue;
      ++out.counted;
      if (t.throttled) ++out.throttled;
    }
    return out;
  };
  std::vector<report::ThrottledCount> counts{count(v.condition, v.condition.label())};
  if (baseline != nullptr && baseline->index != v.condition.index) counts.push_back(count(*baseline, baseline->label() + " (baseline)"));
  return report::throttled_trials_note("--accept-throttled; each trial's reason names the throttle", counts);
}

report::Results results(const ConditionView& v) {
  report::Results r;
  r.decode = phase_summary(v, "decode", &TrialResult::decode);
  r.prefill = phase_summary(v, "prefill", &TrialResult::prefill);
  const Condition* baseline = find_baseline(v.run, v.condition);
  const std::optional<double> baseline_mean =
      baseline != nullptr ? ConditionView::metric_mean(find_summary(v.run, baseline->index), kDecodeEnergy)
                          : std::nullopt;
  const std::optional<Summary> delta = paired_delta(v);
  const double duration = r.decode->duration_s;
  if (v.measured) {
    r.energy_per_token_mj = v.mean(kDecodeEnergy);
    r.total_energy_joules = r.decode->energy_j;
    r.fp16_energy_per_token_mj = baseline_mean;
    if (delta && delta->n > 0) r.vs_fp16_energy_pct = delta->mean;
    if (r.decode->energy_j && duration > 0) r.avg_power_watts = *r.decode->energy_j / duration;
    r.idle_power_watts = value_of(v.run.idle.power);
  }
  r.basis = v.measured ? report::ResultBasis::measured : report::ResultBasis::unavailable;
  r.tokens_generated = r.decode->tokens;
  // The mean of the trials' rates, as for energy (statistics.throughput_tokens_per_s has its spread):
  // tokens over time pooled across trials would let one slow trial stand for all.
  r.throughput_tokens_per_s = r.decode->tokens_per_s;
  r.net_energy_per_token_mj = r.decode->net_energy_per_token_mj;
  r.energy_basis = "gross";
  r.note = v.measured
               ? "energy_per_token_mj: mean over valid trials of gross decode-window energy per generated token; "
                 "vs_fp16_energy_pct: mean of the paired per-block differences against the same-run baseline "
                 "(fp16_energy_per_token_mj, which is the baseline precision's); net figures subtract idle power."
               : unmeasured_note(v);
  if (v.measured && !r.vs_fp16_energy_pct && !v.condition.is_baseline) {
    *r.note += " vs_fp16_energy_pct is null: the baseline has no valid trial to pair with.";
  }
  if (v.condition.batch > 1) {
    *r.note += per_sequence_note(v.condition.batch, v.run.design.tokens_per_iteration, r.energy_per_token_mj);
  }
  if (auto counted = throttled_trials_counted(v, baseline)) *r.note += " " + *counted;
  return r;
}

report::Spread spread_of(const Summary& x) { return report::Spread{x.mean, x.sd, x.cv_pct, x.ci_low, x.ci_high}; }

report::Statistics statistics(const ConditionView& v) {
  report::Statistics s;
  s.n_trials = static_cast<std::int64_t>(v.ok.size());
  s.n_failed = v.n_failed();
  s.n_cancelled = static_cast<std::int64_t>(v.trials.size() - v.ok.size()) - s.n_failed;
  const protocol::MetricSummary* throughput =
      v.summary != nullptr ? v.summary->find(kDecodeThroughput) : nullptr;
  s.throughput_tokens_per_s = throughput != nullptr && throughput->summary.n > 0 ? spread_of(throughput->summary)
                                                                                  : report::Spread{};
  const protocol::MetricSummary* energy = v.summary != nullptr ? v.summary->find(kDecodeEnergy) : nullptr;
  if (v.measured && energy != nullptr && energy->summary.n > 0) s.energy_per_token_mj = spread_of(energy->summary);
  const std::optional<Summary> delta = v.measured ? paired_delta(v) : std::nullopt;
  if (delta) {
    s.vs_fp16_energy_pct.n_pairs = static_cast<std::int64_t>(delta->n);
    if (delta->n > 0) {
      s.vs_fp16_energy_pct.mean = delta->mean;
      s.vs_fp16_energy_pct.sd = delta->sd;
      s.vs_fp16_energy_pct.ci95_low = delta->ci_low;
      s.vs_fp16_energy_pct.ci95_high = delta->ci_high;
    }
  }
  return s;
}

std::vector<report::TrialReport> trial_reports(const ConditionView& v) {
  std::vector<report::TrialReport> out;
  for (const TrialResult* t : v.trials) {
    out.push_back(report::TrialReport{t->repetition, t->block, static_cast<std::int64_t>(t->index),
                                      std::string(protocol::to_string(t->status)), t->reason.substr(0, max_reason_chars),
                                      unless_empty(t->warmup), window_report(t->prefill), window_report(t->decode)});
  }
  return out;
}

// Uncertainty budget over the ok trials' windows.
report::Uncertainty uncertainty(const ConditionView& v) {
  std::optional<double> edge_max;
  std::optional<double> trace_max;
  std::optional<double> update_period;
  std::int64_t corrections_skipped = 0;
  for (const TrialResult* t : v.ok) {
    for (const std::optional<WindowResult>* w : {&t->prefill, &t->decode}) {
      if (!*w) continue;
      if (!(*w)->measurement.edge_correction_skipped.empty()) ++corrections_skipped;
      if (auto e = (*w)->edge_uncertainty_pct()) edge_max = std::max(edge_max.value_or(0.0), *e);
      if (auto tr = (*w)->measurement.trace_vs_counter_pct) trace_max = std::max(trace_max.value_or(0.0), std::fabs(*tr));
      if (auto p = (*w)->measurement.counter_update_period; p && !update_period) update_period = p->value;
    }
  }
  const protocol::IterationDecision& decision = v.run.decision_for(v.condition.batch);
  if (!update_period && decision.update_period_measured) update_period = decision.counter_update_period.value;
  report::Uncertainty u;
  if (v.measured) {
    u.edge_error_pct_max = edge_max;
    u.trace_vs_counter_pct_max = trace_max;
  }
  u.counter_update_period_s = update_period;
  if (v.measured) {
    u.edges = v.run.design.correct_edges ? "corrected" : "counter";
    if (v.run.design.correct_edges) u.edge_corrections_skipped = corrections_skipped;
  }
  return u;
}

std::optional<report::QualitySection> quality_section(const ReportContext& context, std::string_view precision) {
  if (context.weights == report::WeightsKind::synthetic) return std::nullopt;
  const auto found = std::find_if(context.quality.begin(), context.quality.end(),
                                  [&](const quality::QualityResult& q) { return q.precision == precision; });
  if (found == context.quality.end()) return std::nullopt;
  const quality::QualityResult& q = *found;
  report::QualitySection s;
  s.value = q.perplexity.value;
  s.fp16_value = q.baseline_perplexity.value;
  s.delta_vs_fp16_pct = q.delta_ppl_pct.value;
  s.delta_vs_fp16_pct_se = q.delta_ppl_pct.standard_error;
  s.mean_nll = q.mean_nll;
  s.tokens_evaluated = q.tokens_evaluated;
  s.windows = q.windows;
  s.seq_len = q.policy.seq_len;
  s.corpus = report::CorpusRef{q.corpus.name, q.corpus.bytes, q.corpus.sha256};
  if (q.kld) {
    s.kld = q.kld->value;
    s.kld_se = q.kld->standard_error;
  }
  s.kld_p99 = q.kld_p99;
  if (q.top1_agreement_pct) s.top1_agreement_pct = q.top1_agreement_pct->value;
  s.policy = report::QualityPolicy{q.policy.seq_len, q.policy.stride, q.policy.add_bos};
  s.baseline_precision = q.baseline;
  s.note = "Scored after the energy windows, with the same weights as measured; only deltas against the "
           "same-run baseline are comparable across runs, and only on the same corpus.sha256.";
  return s;
}

Result<std::string> model_sha256(const ReportContext& context, const Condition& condition,
                                 const engine::ModelInfo& model) {
  if (auto it = context.model_sha256.find(condition.precision); it != context.model_sha256.end()) return it->second;
  auto hashed = sha256_file(model.path);
  if (!hashed) return Error(hashed.error().code(), "cannot hash the measured model of " + condition.label(), hashed.error());
  return *hashed;
}

}  // namespace

std::vector<report::GpuWindowShare> gpu_shares(const meter::Measurement& measurement) {
  std::vector<report::GpuWindowShare> out;
  for (const meter::Measurement& part : measurement.per_device) {
    out.push_back(report::GpuWindowShare{part.device, value_of(part.energy), value_of(part.average_power()),
                                         value_of(part.edge_uncertainty), meter::to_string(part.status)});
  }
  return out;
}

report::SystemUnderTest system_under_test(const ReportContext& context) {
  const std::optional<meter::GpuInfo>& gpu = context.sources.gpu;
  report::SystemUnderTest s;
  s.gpu = gpu ? gpu->name : "none";
  s.gpu_arch = gpu && !gpu->arch.empty() ? gpu->arch : "none";
  s.accelerator_count = gpu ? std::max(1, static_cast<int>(context.sources.split_gpus.size())) : 0;
  s.host = context.host;
  s.cpu = text_or_absent(context.cpu);
  return s;
}

std::string report_file_name(const Condition& condition) {
  // Batch 1 keeps the name it had before batch was a factor; a batch above 1 adds "-b<B>".
  std::string name = "energy-" + condition.precision;
  if (condition.prompt_tokens != 0) name += "-p" + std::to_string(condition.prompt_tokens);
  if (condition.batch > 1) name += "-b" + std::to_string(condition.batch);
  return name + ".json";
}

report::Environment build_environment(const ReportContext& context, const std::string& engine_commit) {
  const std::optional<meter::GpuInfo>& gpu = context.sources.gpu;
  report::Environment e;
  if (gpu) {
    e.gpu_name = text_or_absent(gpu->name);
    e.gpu_uuid = text_or_absent(gpu->uuid);
    e.vbios = text_or_absent(gpu->vbios);
    e.power_limit_w = value_of(gpu->power_limit);
    e.ecc = gpu->ecc_enabled;
  }
  e.nvidia_driver = text_or_absent(context.sources.driver_version);
  e.cuda_driver = text_or_absent(context.sources.cuda_driver_version);
  e.engine_commit = engine_commit;
  e.ecocompute_commit = context.ecocompute_commit;
  e.host = context.host;
  for (const meter::GpuInfo& g : context.sources.split_gpus) {
    e.gpus.push_back(report::SplitGpu{g.name, g.uuid, text_or_absent(g.vbios), value_of(g.power_limit)});
  }
  e.fingerprint = report::environment_fingerprint(e);
  return e;
}

Result<report::EnergyReport> build_energy_report(const RunResult& run, std::size_t condition_index,
                                                 const ReportContext& context) {
  ECO_CHECK(condition_index < run.conditions.size(), "build_energy_report: no such condition");
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
  auto sha256 = model_sha256(context, condition, *setup->model);
  if (!sha256) return sha256.error();

  ConditionView v{run, condition, *setup, {}, {}, find_summary(run, condition_index),
                  measurement_source(run.meter_source), false};
  for (const TrialResult& t : run.trials) {
    if (t.condition != condition_index) continue;
    v.trials.push_back(&t);
    if (t.is_ok()) v.ok.push_back(&t);
  }
  v.measured = v.source != "none" && run.meter_measures_energy && v.mean(kDecodeEnergy).has_value();

  const engine::EngineDescription& engine = *setup->engine;
  report::EnergyReport r;
  r.benchmark = "ecocompute-energy-methodology";
  r.certified_benchmark_result = false;
  if (condition.batch == 1) {
    r.scenario = "SingleStream";
    r.scenario_note = "Batch 1, greedy decoding; not run under MLPerf LoadGen; not a certified benchmark result.";
  } else {
    // B sequences decoded together, one token of each per step: throughput-oriented, as Offline.
    r.scenario = "Offline";
    r.scenario_note = fmt::format("Batch {}: {} parallel sequences of the same prompt, one token of each per decode "
                                  "step, greedy decoding; not run under MLPerf LoadGen; not a certified benchmark result.",
                                  condition.batch, condition.batch);
  }
  r.timestamp_utc = run.started_utc.empty() ? utc_now() : run.started_utc;
  r.measurement_source = std::string(v.source);
  r.provenance = report::Provenance{"ecocompute", context.ecocompute_version, context.ecocompute_commit,
                                    context.run_id, std::nullopt};
  r.system_under_test = system_under_test(context);
  r.engine = engine_section(engine);
  r.workload = workload(v, context, std::move(*sha256));
  r.measurement = measurement_section(v);
  r.software = software(context, engine);
  r.environment = build_environment(context, engine.commit);
  r.results = results(v);
  r.statistics = statistics(v);
  r.trials = trial_reports(v);
  r.uncertainty = uncertainty(v);
  r.quality = quality_section(context, condition.precision);
  return r;
}

}  // namespace ecocompute::experiment
