// Serving reports: which figures of a sweep enter which field of a Server energy.json and the summary.
#include "experiment/serving_report.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "report/environment_fingerprint.hpp"
#include "experiment/report_builder.hpp"
#include "protocol/occupancy_energy.hpp"
#include "util/json.hpp"

namespace ecocompute::experiment {
namespace {

using protocol::BreakEven;
using protocol::LevelRun;
using protocol::ServingAnalysis;
using protocol::ServingLevelSummary;
using protocol::SweepResult;

constexpr std::size_t kMaxReasonChars = 4000;

// The rule, stated once: reports and the summary carry it word for word.
constexpr std::string_view kWindowRule =
    "steady-state window: opens the first time all C in-flight requests have produced text (a request not "
    "streamed: has been sent) and closes when the first worker finds no request left to send; tokens inside it "
    "are counted from chunk arrival times (a request's usage.completion_tokens spread evenly over its text "
    "chunks; not streamed: over its span); a failed request overlapping the window makes it invalid. The whole "
    "run (first request sent to last response) is metered too.";

std::optional<double> present(const Summary& s) { return s.n > 0 ? std::optional(s.mean) : std::nullopt; }

std::vector<const LevelRun*> runs_of(const SweepResult& sweep, std::size_t endpoint, int concurrency) {
  std::vector<const LevelRun*> out;
  for (const LevelRun& r : sweep.runs) {
    if (r.endpoint == endpoint && r.concurrency == concurrency) out.push_back(&r);
  }
  return out;
}

bool measured(const ServingContext& context, const ServingLevelSummary* level) {
  return context.meter_source != "none" && context.meter_measures_energy && level != nullptr &&
         level->window_mj_per_token.n > 0;
}

std::string server_model_of(const SweepResult& sweep, std::size_t endpoint) {
  for (const LevelRun& r : sweep.runs) {
    if (r.endpoint != endpoint) continue;
    for (const auto& record : r.records) {
      if (record.ok && !record.server_model.empty()) return record.server_model;
    }
  }
  return "";
}

std::string method_text(std::string_view source, bool lockstep) {
  std::string counter = source == "direct-nvml"
                            ? "GPU energy counter (nvmlDeviceGetTotalEnergyConsumption) differenced at the window edges"
                        : source == "rapl" ? "RAPL energy counter differenced at the window edges"
                                           : "no energy source was readable: tokens, throughput and latency only";
  return counter + (lockstep ? "; lockstep rounds" : "; closed loop") + " against an OpenAI-compatible endpoint; " + std::string(kWindowRule);
}

report::WindowReport window_report(const protocol::ServingWindow& w) {
  report::WindowReport out;
  out.duration_s = std::max(0.0, w.duration().value);
  out.tokens = std::llround(w.tokens);
  if (w.measurement) {
    const meter::Measurement& m = *w.measurement;
    if (auto e = w.energy()) {
      out.energy_j = e->value;
      if (w.tokens > 0) out.energy_per_token_mj = e->value / w.tokens * 1000.0;
      if (out.duration_s > 0) out.avg_power_w = e->value / out.duration_s;
      out.edge_method = meter::to_string(m.edge_method);
    }
    if (m.edge_uncertainty) out.edge_uncertainty_j = m.edge_uncertainty->value;
    if (m.trace_energy) out.trace_energy_j = m.trace_energy->value;
    out.trace_vs_counter_pct = m.trace_vs_counter_pct;
    std::set<std::string> names(m.at_begin.throttle_reason_names.begin(), m.at_begin.throttle_reason_names.end());
    names.insert(m.at_end.throttle_reason_names.begin(), m.at_end.throttle_reason_names.end());
    out.throttle_reasons.assign(names.begin(), names.end());
    out.status = meter::to_string(m.status);
    out.per_gpu = gpu_shares(m);
  }
  return out;
}

std::string trial_status(const LevelRun& r) {
  if (r.cancelled) return "cancelled";
  return r.is_ok() ? "ok" : "invalid_window";
}

report::Spread spread(const Summary& s) { return {s.mean, s.sd, s.cv_pct, s.ci_low, s.ci_high}; }

std::string ms(const std::optional<double>& seconds) {
  return seconds ? fmt::format("{:.1f}", *seconds * 1000.0) : std::string("–");
}

std::string percentiles_ms(const protocol::Percentiles& p) {
  return fmt::format("{}/{}/{}", ms(p.p50), ms(p.p90), ms(p.p99));
}

std::string mean_ci(const Summary& s, int digits) {
  if (s.n == 0) return "–";
  if (!s.ci_half_width) return fmt::format("{:.{}f} (n={})", s.mean, digits, s.n);
  return fmt::format("{:.{}f} ± {:.{}f}", s.mean, digits, *s.ci_half_width, digits);
}

OrderedJson summary_json(const Summary& s) {
  return OrderedJson{{"mean", s.n > 0 ? OrderedJson(s.mean) : OrderedJson(nullptr)},
                     {"sd", json_or_null(s.sd)},
                     {"ci_low", json_or_null(s.ci_low)},
                     {"ci_high", json_or_null(s.ci_high)},
                     {"n", s.n}};
}

OrderedJson percentiles_json(const protocol::Percentiles& p) {
  return OrderedJson{{"p50", json_or_null(p.p50)}, {"p90", json_or_null(p.p90)}, {"p99", json_or_null(p.p99)},
                     {"n", p.n}};
}

OrderedJson first_block_json(const std::optional<protocol::FirstBlock>& first, bool is_measured) {
  if (!first || !is_measured) return nullptr;
  return OrderedJson{{"energy_pct", first->energy_pct},
                     {"throughput_pct", first->throughput_pct ? OrderedJson(*first->throughput_pct) : OrderedJson(nullptr)},
                     {"above_every_later", first->above_every_later},
                     {"later_blocks", first->later}};
}

OrderedJson request_failures_json(const ServingLevelSummary& level) {
  OrderedJson out = OrderedJson::array();
  for (const auto& [reason, count] : level.request_failures) out.push_back(OrderedJson{{"reason", reason}, {"count", count}});
  return out;
}

std::string sequential_rule_words(const protocol::SweepDesign& design) {
  return fmt::format(
      "Sequential rule: up to {} blocks per level, looks after blocks {} … {}; a level stops once every candidate's "
      "paired ΔE interval is within ± {} pt. Every interval is at {:.2f} % so that the one reported covers with "
      "≥ 95 % whatever look stopped its level (Bonferroni over the looks).",
      design.trials, design.min_trials, design.trials, *design.target_ci_pt, design.confidence() * 100.0);
}

// The blocks a level ran: the sequential rule's count when it ran, else the design's k.
int trials_at_level(const SweepResult& sweep, int concurrency) {
  for (const protocol::LevelStop& stop : sweep.stops) {
    if (stop.concurrency == concurrency) return stop.blocks_run;
  }
  return sweep.design.trials;
}

std::string level_warmup_words(const protocol::SweepDesign& design, int concurrency, std::int64_t per_trial) {
  if (design.level_warmup_trials == 0) return "";
  return fmt::format(", and {} unmetered trial(s) ({} requests at concurrency {}) before each endpoint's first trial "
                     "of the level (and again after a --level-cmd or --restart-cmd)",
                     design.level_warmup_trials, design.level_warmup_trials * per_trial, concurrency);
}

std::string schedule_words(const protocol::SweepDesign& design) {
  std::string text = design.level_by_level
                         ? "level by level: every block of a level before the next level, each block every endpoint"
                         : "blocks: each block runs every level, each level every endpoint";
  text += design.endpoint_order == protocol::EndpointOrder::alternating
              ? "; the endpoint order reversed from block to block: the baseline first in the first, third … "
                "block, last in the second, fourth …"
              : "; the baseline endpoint first in every block";
  if (design.target_ci_pt) {
    text += fmt::format("; a level takes no more blocks once every candidate's paired ΔE CI is within ± {} pt "
                        "(looks after blocks {} … {})",
                        *design.target_ci_pt, design.min_trials, design.trials);
  }
  return text;
}

}  // namespace

std::string serving_report_file_name(const std::string& label, int concurrency) {
  return fmt::format("energy-{}-c{}.json", label, concurrency);
}

report::EnergyReport build_serving_report(const SweepResult& sweep, const ServingAnalysis& analysis,
                                          std::size_t endpoint, int concurrency, const ServingContext& context) {
  const engine::EndpointSpec& spec = sweep.endpoints.at(endpoint);
  const ServingLevelSummary* level = analysis.find(endpoint, concurrency);
  const ServingLevelSummary* baseline = analysis.find(0, concurrency);
  const protocol::ServingPaired* paired = analysis.find_paired(endpoint, concurrency);
  const bool is_measured = measured(context, level);
  const std::vector<const LevelRun*> runs = runs_of(sweep, endpoint, concurrency);
  const std::string server_model = server_model_of(sweep, endpoint);
  const ReportContext& rc = context.report;

  report::EnergyReport r;
  r.benchmark = "ecocompute-energy-methodology";
  r.certified_benchmark_result = false;
  r.scenario = "Server";
  const std::string loop = sweep.design.trial.lockstep
                               ? fmt::format("Lockstep rounds of {} requests sent together (the next round when all have ended), so "
                                             "a server with {} slots runs a batch of {} through most of each round",
                                             concurrency, concurrency, concurrency)
                               : fmt::format("Closed loop keeping {} requests in flight", concurrency);
  r.scenario_note = fmt::format(
      "{} against an OpenAI-compatible endpoint ({}, /{} route, {}), greedy; {}not run under MLPerf LoadGen; not a "
      "certified benchmark result.",
      loop, spec.base_url(), context.api, context.streamed ? "streamed" : "not streamed",
      sweep.design.trial.lockstep ? "" : "the server batches them as it likes; ");
  r.timestamp_utc = runs.empty() ? utc_now() : runs.front()->started_utc;
  for (const LevelRun* run : runs) r.timestamp_utc = std::min(*r.timestamp_utc, run->started_utc);
  r.measurement_source = std::string(measurement_source(context.meter_source));
  r.provenance = report::Provenance{"ecocompute", rc.ecocompute_version, rc.ecocompute_commit, rc.run_id, std::nullopt};
  r.system_under_test = system_under_test(rc);

  // The client sees the server only through HTTP: what it cannot know is stated, not guessed.
  report::EngineSection engine;
  // The server behind the endpoint, as the user declared it (--server-engine); the API does not say.
  engine.name = context.server_engine.empty() ? "openai-endpoint" : context.server_engine;
  engine.version = "not reported by the API";
  engine.commit = "not reported by the API";
  engine.backend = fmt::format("OpenAI-compatible HTTP, /{}{}", context.api,
                               context.server_engine.empty() ? "" : "; the server's name as declared by --server-engine");
  engine.device = spec.base_url();
  r.engine = engine;

  report::Workload& w = r.workload;
  // A server often names its model by an alias (llama-server --alias Q4_K_M): the user's name wins.
  w.model_name = !context.model_name.empty() ? context.model_name : server_model.empty() ? spec.model : server_model;
  w.params_b = context.params_b;
  w.precision = spec.label;
  w.batch_size = 1;
  w.concurrency = concurrency;
  std::int64_t prompt_sum = 0, prompt_n = 0;
  for (const LevelRun* run : runs) {
    for (const auto& record : run->records) {
      if (!record.ok) continue;
      prompt_sum += record.prompt_tokens;
      ++prompt_n;
    }
  }
  w.prompt_tokens = prompt_n > 0 ? (prompt_sum + prompt_n / 2) / prompt_n : 0;
  w.decoding = "greedy";

  report::MeasurementSection& m = r.measurement;
  double rate = 0.0;
  int rate_n = 0;
  for (const LevelRun* run : runs) {
    if (run->is_ok() && run->steady.measurement) {
      rate += run->steady.measurement->achieved_sample_rate_hz;
      ++rate_n;
    }
  }
  m.method = method_text(*r.measurement_source, sweep.design.trial.lockstep);
  m.sample_rate_hz = rate_n > 0 ? std::llround(rate / rate_n) : 0;
  const std::int64_t per_trial = sweep.design.requests_per_trial(concurrency, 0);
  m.tokens_per_run = level != nullptr && level->n_ok > 0 ? level->window_tokens / static_cast<std::int64_t>(level->n_ok) : 0;
  m.iterations = runs.empty() ? per_trial : static_cast<std::int64_t>(runs.front()->records.size());
  m.warmup = sweep.design.warmup_requests;
  // A stop that cut a block after the rule's last look leaves trials of that block in the run: they are
  // trials of the level too (the report lists them), so the count is never below the trials listed.
  const int trials_here = std::max(trials_at_level(sweep, concurrency), static_cast<int>(runs.size()));
  m.iterations_note = fmt::format(
      "iterations: requests per trial ({} requests: {}), {} kept in flight; warmup: unmetered requests, one at a "
      "time, before every trial{}; tokens_per_run: mean output tokens inside the steady-state window per trial; "
      "{} trials per endpoint and level, interleaved with the baseline endpoint in blocks{}.",
      m.iterations.value_or(0), context.request_set, concurrency, level_warmup_words(sweep.design, concurrency, m.iterations.value_or(0)),
      trials_here, sweep.design.target_ci_pt ? " (the sequential rule's count: see sweep.json)" : "");
  m.window = "steady-state";
  m.baseline_precision = sweep.endpoints.front().label;
  m.trials_per_precision = trials_here;
  m.schedule = schedule_words(sweep.design);
  m.seed = context.request_set_seed;

  r.software = OrderedJson{{"ecocompute", rc.ecocompute_version},
                           {"ecocompute_commit", rc.ecocompute_commit},
                           {"compiler", rc.compiler},
                           {"engine", "openai-endpoint"},
                           {"server_model", text_or_null(server_model)},
                           {"endpoint_url", spec.base_url()},
                           {"requested_model", spec.model},
                           {"nvidia_driver", text_or_null(rc.sources.driver_version)}};
  r.environment = build_environment(rc, "endpoint " + spec.base_url() + " serving " + w.model_name);

  report::Results& x = r.results;
  report::PhaseSummary window;
  double energy = 0.0;
  bool all_energy = is_measured;
  for (const LevelRun* run : runs) {
    if (!run->is_ok()) continue;
    window.duration_s += run->steady.duration().value;
    window.tokens += std::llround(run->steady.tokens);
    if (auto joules = run->steady.energy()) {
      energy += joules->value;
    } else {
      all_energy = false;
    }
  }
  if (level != nullptr) window.tokens_per_s = present(level->window_tokens_per_s);
  if (is_measured) {
    window.energy_per_token_mj = present(level->window_mj_per_token);
    window.avg_power_w = present(level->window_avg_power_w);
    if (all_energy) window.energy_j = energy;
  }
  x.decode = window;
  x.basis = is_measured ? report::ResultBasis::measured : report::ResultBasis::unavailable;
  x.tokens_generated = window.tokens;
  x.throughput_tokens_per_s = window.tokens_per_s;
  x.energy_basis = "gross";
  if (is_measured) {
    x.energy_per_token_mj = window.energy_per_token_mj;
    x.total_energy_joules = window.energy_j;
    if (window.energy_j && window.duration_s > 0) x.avg_power_watts = *window.energy_j / window.duration_s;
    if (measured(context, baseline)) x.fp16_energy_per_token_mj = present(baseline->window_mj_per_token);
    if (paired != nullptr && paired->delta_pct.n > 0) x.vs_fp16_energy_pct = paired->delta_pct.mean;
    if (level != nullptr) {
      x.energy_per_total_token_mj = present(level->whole_mj_per_total_token);
      x.energy_per_request_j = present(level->joules_per_request);
    }
  }
  std::string note =
      is_measured ? "energy_per_token_mj: mean over valid trials of the steady-state window's gross energy per output "
                    "token; vs_fp16_energy_pct: mean of the paired per-block differences against the baseline "
                    "endpoint at the same concurrency (fp16_energy_per_token_mj is the baseline endpoint's)."
                  : "No energy source read the windows: energy figures are null; tokens, throughput and latency are "
                    "measured.";
  if (level != nullptr) {
    if (is_measured) {
      note += fmt::format(" Whole run (ramp-up and ramp-down included): {} mJ/token, {} mJ per total (prompt + "
                          "output) token (energy_per_total_token_mj), {} J/request (energy_per_request_j).",
                          mean_ci(level->whole_mj_per_token, 2), mean_ci(level->whole_mj_per_total_token, 2),
                          mean_ci(level->joules_per_request, 3));
    }
    note += fmt::format(" TTFT p50/p90/p99 {} ms, inter-token p50/p90/p99 {} ms over {} ok requests ({} failed).",
                        percentiles_ms(level->ttft_s), percentiles_ms(level->itl_s), level->requests_ok,
                        level->requests_failed);
  }
  x.note = note;

  report::Statistics s;
  s.n_trials = level != nullptr ? static_cast<std::int64_t>(level->n_ok) : 0;
  s.n_failed = 0;
  std::int64_t cancelled = 0;
  for (const LevelRun* run : runs) {
    if (run->cancelled) {
      ++cancelled;
    } else if (!run->is_ok()) {
      ++s.n_failed;
    }
  }
  s.n_cancelled = cancelled;
  if (level != nullptr && level->window_tokens_per_s.n > 0) s.throughput_tokens_per_s = spread(level->window_tokens_per_s);
  if (is_measured) s.energy_per_token_mj = spread(level->window_mj_per_token);
  if (is_measured && paired != nullptr) {
    s.vs_fp16_energy_pct.n_pairs = static_cast<std::int64_t>(paired->delta_pct.n);
    if (paired->delta_pct.n > 0) {
      s.vs_fp16_energy_pct.mean = paired->delta_pct.mean;
      s.vs_fp16_energy_pct.sd = paired->delta_pct.sd;
      s.vs_fp16_energy_pct.ci95_low = paired->delta_pct.ci_low;
      s.vs_fp16_energy_pct.ci95_high = paired->delta_pct.ci_high;
    }
  }
  r.statistics = s;

  std::vector<report::TrialReport> trials;
  report::Uncertainty u;
  std::int64_t corrections_skipped = 0;
  if (is_measured) u.edges = context.edges;
  for (const LevelRun* run : runs) {
    trials.push_back(report::TrialReport{run->block, run->block, static_cast<std::int64_t>(run->order_index),
                                         trial_status(*run), run->reason().substr(0, kMaxReasonChars), std::nullopt,
                                         std::nullopt, window_report(run->steady)});
    if (!run->is_ok() || !run->steady.measurement || !is_measured) continue;
    const meter::Measurement& mm = *run->steady.measurement;
    if (!mm.edge_correction_skipped.empty()) ++corrections_skipped;
    if (mm.edge_uncertainty && mm.energy && mm.energy->value > 0) {
      u.edge_error_pct_max = std::max(u.edge_error_pct_max.value_or(0.0), mm.edge_uncertainty->value / mm.energy->value * 100.0);
    }
    if (mm.trace_vs_counter_pct) {
      u.trace_vs_counter_pct_max = std::max(u.trace_vs_counter_pct_max.value_or(0.0), std::fabs(*mm.trace_vs_counter_pct));
    }
    if (mm.counter_update_period && !u.counter_update_period_s) u.counter_update_period_s = mm.counter_update_period->value;
  }
  if (is_measured && context.edges == "corrected") u.edge_corrections_skipped = corrections_skipped;
  r.trials = std::move(trials);
  r.uncertainty = u;
  return r;
}

namespace {

OrderedJson sequential_rule_json(const SweepResult& sweep) {
  if (!sweep.design.target_ci_pt) return nullptr;
  OrderedJson levels = OrderedJson::array();
  for (const protocol::LevelStop& stop : sweep.stops) {
    levels.push_back(OrderedJson{{"concurrency", stop.concurrency},
                                 {"blocks_run", stop.blocks_run},
                                 {"reached", stop.reached},
                                 {"status", stop.status}});
  }
  return OrderedJson{{"target_ci_pt", *sweep.design.target_ci_pt},
                     {"min_trials", sweep.design.min_trials},
                     {"max_trials", sweep.design.trials},
                     {"confidence_per_look", sweep.design.confidence()},
                     {"rule", sequential_rule_words(sweep.design)},
                     {"levels", levels}};
}

}  // namespace

// The servers' occupancy at a level over its ok trials' steady windows (--server-occupancy): the share
// of the window at each number of running requests and the mean; null when it was not read.
OrderedJson server_occupancy_json(const std::vector<const LevelRun*>& runs) {
  protocol::OccupancyShares shares;
  std::map<int, protocol::OccupancyEnergy> energy_at;
  int read = 0, asked = 0, split = 0;
  double split_joules = 0.0, window_joules = 0.0;
  std::string unavailable, not_split;
  for (const LevelRun* r : runs) {
    if (r->occupancy.samples.empty() && r->occupancy.unavailable.empty()) continue;
    ++asked;
    if (unavailable.empty()) unavailable = r->occupancy.unavailable;
    if (!r->is_ok()) continue;
    const double before = shares.covered_s;
    shares.add(r->occupancy.samples, r->steady.begin, r->steady.end);
    read += shares.covered_s > before ? 1 : 0;
    const protocol::OccupancySplit part = protocol::split_by_occupancy(*r);
    if (!part.not_split.empty()) {
      if (not_split.empty()) not_split = part.not_split;
      continue;
    }
    ++split;
    window_joules += part.window_joules;
    for (const auto& [running, e] : part.at) split_joules += e.joules;
    protocol::add_split(energy_at, part.at);
  }
  if (asked == 0) return nullptr;
  OrderedJson share_of = OrderedJson::object();
  for (const auto& [occupancy, share] : shares.shares()) share_of[std::to_string(occupancy)] = share;
  OrderedJson at = OrderedJson::object();
  for (const auto& [running, e] : energy_at) {
    at[std::to_string(running)] =
        OrderedJson{{"seconds", e.seconds},
                    {"energy_j", e.joules},
                    {"output_tokens", e.tokens},
                    {"mj_per_output_token", e.tokens > 0.0 ? OrderedJson(e.joules / e.tokens * 1e3) : OrderedJson(nullptr)}};
  }
  return OrderedJson{{"source", "GET /metrics"},
                     {"trials_read", read},
                     {"window_seconds_covered", shares.covered_s},
                     {"readings_in_window", shares.readings_inside},
                     {"mean_running_requests", json_or_null(shares.mean())},
                     {"share_of_window_at", share_of},
                     {"unavailable", text_or_null(unavailable)},
                     {"energy_at", OrderedJson{{"basis", "measured: the windows' counter energy, spread over the "
                                                         "spans between readings by the GPU's power trace"},
                                               {"trials_split", split},
                                               {"share_of_window_energy", window_joules > 0.0
                                                                              ? OrderedJson(split_joules / window_joules)
                                                                              : OrderedJson(nullptr)},
                                               {"running_requests", at},
                                               {"not_split", split == 0 ? OrderedJson(text_or_null(not_split)) : OrderedJson(nullptr)}}}};
}

OrderedJson serving_summary_json(const SweepResult& sweep, const ServingAnalysis& analysis,
                                 const ServingContext& context) {
  OrderedJson endpoints = OrderedJson::array();
  for (std::size_t e = 0; e < sweep.endpoints.size(); ++e) {
    const auto& spec = sweep.endpoints[e];
    const std::string model = server_model_of(sweep, e);
    endpoints.push_back(OrderedJson{{"label", spec.label},
                                    {"url", spec.base_url()},
                                    {"model", spec.model},
                                    {"server_model", text_or_null(model)},
                                    {"baseline", e == 0}});
  }
  OrderedJson levels = OrderedJson::array();
  for (const ServingLevelSummary& l : analysis.levels) {
    const bool is_measured = measured(context, &l);
    auto energy = [&](const Summary& s) { return is_measured ? summary_json(s) : OrderedJson(nullptr); };
    levels.push_back(OrderedJson{{"label", l.label},
                                 {"concurrency", l.concurrency},
                                 {"trials", l.n_trials},
                                 {"trials_ok", l.n_ok},
                                 {"requests_ok", l.requests_ok},
                                 {"requests_failed", l.requests_failed},
                                 {"level_warmup_requests", l.level_warmup_sent},
                                 {"level_warmup_failed", l.level_warmup_failed},
                                 {"window_tokens", l.window_tokens},
                                 {"whole_run_tokens", l.whole_tokens},
                                 {"window_mj_per_token", energy(l.window_mj_per_token)},
                                 {"whole_run_mj_per_token", energy(l.whole_mj_per_token)},
                                 {"whole_run_mj_per_total_token", energy(l.whole_mj_per_total_token)},
                                 {"joules_per_request", energy(l.joules_per_request)},
                                 {"window_avg_power_w", energy(l.window_avg_power_w)},
                                 {"window_tokens_per_s", summary_json(l.window_tokens_per_s)},
                                 {"ttft_s", percentiles_json(l.ttft_s)},
                                 {"itl_s", percentiles_json(l.itl_s)},
                                 {"first_block", first_block_json(l.first_block, is_measured)},
                                 {"failures", l.failures},
                                 {"request_failures", request_failures_json(l)},
                                 {"server_occupancy", server_occupancy_json(runs_of(sweep, l.endpoint, l.concurrency))}});
  }
  OrderedJson paired = OrderedJson::array();
  for (const auto& p : analysis.paired) {
    paired.push_back(OrderedJson{{"label", sweep.endpoints.at(p.candidate).label},
                                 {"concurrency", p.concurrency},
                                 {"delta_pct", summary_json(p.delta_pct)},
                                 {"pairs", p.deltas_pct}});
  }
  const auto crossings_json = [&](const std::vector<BreakEven>& list) {
    OrderedJson out = OrderedJson::array();
    for (const auto& b : list) {
      out.push_back(OrderedJson{{"label", sweep.endpoints.at(b.candidate).label},
                                {"crosses", b.crosses},
                                {"direction", text_or_null(b.direction)},
                                {"concurrency", json_or_null(b.concurrency)},
                                {"range_low", json_or_null(b.low)},
                                {"range_high", json_or_null(b.high)},
                                {"ci_available", b.ci_available},
                                {"ci_low", json_or_null(b.ci_low)},
                                {"ci_high", json_or_null(b.ci_high)},
                                {"ci_low_at_or_below_lowest", b.ci_low_at_or_below_lowest()},
                                {"ci_high_beyond_highest", b.ci_high_beyond_highest()},
                                {"note", b.note}});
    }
    return out;
  };
  OrderedJson gpu_uuids = OrderedJson::array();
  for (const meter::GpuInfo& g : context.report.sources.split_gpus) gpu_uuids.push_back(g.uuid);
  if (gpu_uuids.empty() && context.report.sources.gpu) gpu_uuids.push_back(context.report.sources.gpu->uuid);
  return OrderedJson{{"schema_version", "ecocompute-serving-sweep/1"},
                     {"run_id", context.report.run_id},
                     {"measurement_source", std::string(measurement_source(context.meter_source))},
                     {"gpu", context.report.sources.gpu ? OrderedJson(context.report.sources.gpu->name) : OrderedJson(nullptr)},
                     {"gpu_uuids", gpu_uuids},
                     {"api", context.api},
                     {"streamed", context.streamed},
                     {"request_set", context.request_set},
                     {"trials_per_level", sweep.design.trials},
                     {"order", sweep.design.level_by_level ? "level_by_level" : "blocks_interleave_levels"},
                     {"lockstep", sweep.design.trial.lockstep},
                     {"occupancy_interval_s", sweep.design.trial.read_occupancy
                                                  ? OrderedJson(sweep.design.trial.occupancy_interval.value)
                                                  : OrderedJson(nullptr)},
                     {"endpoint_order", std::string(protocol::to_string(sweep.design.endpoint_order))},
                     {"level_warmup_trials", sweep.design.level_warmup_trials},
                     {"sequential_rule", sequential_rule_json(sweep)},
                     {"restart_cmd", text_or_null(context.restart_cmd)},
                     {"level_cmd", text_or_null(context.level_cmd)},
                     {"concurrency", sweep.design.concurrency},
                     {"window_rule", std::string(kWindowRule)},
                     {"confidence", analysis.confidence},
                     {"cancelled", sweep.cancelled},
                     {"failure", text_or_null(sweep.failure)},
                     {"endpoints", endpoints},
                     {"levels", levels},
                     {"paired_vs_baseline", paired},
                     {"break_even", crossings_json(analysis.break_even)},
                     {"later_crossings", crossings_json(analysis.later_crossings)}};
}

std::string serving_summary_markdown(const SweepResult& sweep, const ServingAnalysis& analysis,
                                     const ServingContext& context) {
  std::ostringstream out;
  out << fmt::format("Serving sweep {} — energy source: {}; baseline endpoint: {}; {}{} trials per level, endpoint "
                     "order {}; CIs {:.4g} % Student-t over trials.\n\n",
                     context.report.run_id, measurement_source(context.meter_source), sweep.endpoints.front().label,
                     sweep.design.target_ci_pt ? "up to " : "", sweep.design.trials,
                     protocol::to_string(sweep.design.endpoint_order), analysis.confidence * 100.0);
  if (sweep.design.level_by_level) {
    out << fmt::format("Levels ran one after another, each after `{}` ({{concurrency}} substituted).\n\n", context.level_cmd);
  }
  if (sweep.design.target_ci_pt) {
    out << sequential_rule_words(sweep.design) << "\n\n";
    for (const protocol::LevelStop& stop : sweep.stops) out << "- " << stop.status << "\n";
    out << "\n";
  }
  out << "| endpoint | C | trials ok | mJ/token (window) | mJ/token (whole run) | mJ/total token (whole run) | "
         "J/request | W | tokens/s | TTFT p50/p90/p99 ms | ITL p50/p90/p99 ms | ΔE vs baseline % |\n";
  out << "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (const ServingLevelSummary& l : analysis.levels) {
    const bool is_measured = measured(context, &l);
    std::string delta = l.endpoint == 0 ? "baseline" : "–";
    if (const auto* p = analysis.find_paired(l.endpoint, l.concurrency); p != nullptr && p->delta_pct.n > 0) {
      delta = p->delta_pct.ci_low ? fmt::format("{:+.1f} [{:+.1f}, {:+.1f}]", p->delta_pct.mean, *p->delta_pct.ci_low,
                                                *p->delta_pct.ci_high)
                                  : fmt::format("{:+.1f} (n=1)", p->delta_pct.mean);
    }
    out << fmt::format("| {} | {} | {}/{} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", l.label, l.concurrency,
                       l.n_ok, l.n_trials, is_measured ? mean_ci(l.window_mj_per_token, 2) : "–",
                       is_measured ? mean_ci(l.whole_mj_per_token, 2) : "–",
                       is_measured ? mean_ci(l.whole_mj_per_total_token, 2) : "–",
                       is_measured ? mean_ci(l.joules_per_request, 3) : "–",
                       is_measured ? mean_ci(l.window_avg_power_w, 1) : "–", mean_ci(l.window_tokens_per_s, 1),
                       percentiles_ms(l.ttft_s), percentiles_ms(l.itl_s), delta);
  }
  bool any_failure = false;
  for (const ServingLevelSummary& l : analysis.levels) {
    for (const auto& [reason, count] : l.request_failures) {
      if (!any_failure) out << "\nFailed requests (their tokens are unknown; a window they overlap is not used):\n\n";
      any_failure = true;
      out << fmt::format("- {} C={}: {} × {}\n", l.label, l.concurrency, count, reason);
    }
  }
  bool any_first_block = false;
  for (const ServingLevelSummary& l : analysis.levels) {
    if (!l.first_block || !measured(context, &l)) continue;
    if (!any_first_block) {
      out << "\nBlock 1 against the later blocks (J/token and tokens/s of the window; a warm-up long enough leaves "
             "block 1 like the others; every block stays in the figures above):\n\n";
    }
    any_first_block = true;
    const protocol::FirstBlock& f = *l.first_block;
    out << fmt::format("- {} C={}: {:+.1f} % J/token, {} tokens/s, against the mean of {} later block(s){}\n", l.label,
                       l.concurrency, f.energy_pct, f.throughput_pct ? fmt::format("{:+.1f} %", *f.throughput_pct) : "–",
                       f.later, f.above_every_later ? "; above every later block" : "");
  }
  out << "\nBreak-even concurrency (where the mean paired ΔE changes sign):\n\n";
  for (const auto& b : analysis.break_even) {
    out << fmt::format("- {}: {}\n", sweep.endpoints.at(b.candidate).label, b.note);
    for (const auto& later : analysis.later_crossings) {
      if (later.candidate == b.candidate) out << fmt::format("  - then {}\n", later.note);
    }
  }
  if (analysis.break_even.empty()) out << "- no candidate endpoint\n";
  return out.str();
}

std::string serving_plot_script(const SweepResult& sweep, const ServingAnalysis& analysis,
                                const std::filesystem::path& svg) {
  std::ostringstream data;
  std::vector<std::string> plots;
  for (std::size_t e = 0; e < sweep.endpoints.size(); ++e) {
    std::ostringstream block;
    int points = 0;
    for (const ServingLevelSummary& l : analysis.levels) {
      if (l.endpoint != e || l.window_mj_per_token.n == 0) continue;
      const Summary& s = l.window_mj_per_token;
      block << fmt::format("{} {:.6g} {:.6g} {:.6g}\n", l.concurrency, s.mean, s.ci_low.value_or(s.mean),
                           s.ci_high.value_or(s.mean));
      ++points;
    }
    if (points == 0) continue;
    const std::string name = fmt::format("$E{}", e);
    data << name << " << EOD\n" << block.str() << "EOD\n";
    plots.push_back(fmt::format("{} using 1:2:3:4 with yerrorlines lw 2 pt 7 title \"{}\"", name,
                                sweep.endpoints[e].label));
  }
  if (plots.empty()) return "";
  std::ostringstream s;
  s << "set terminal svg size 900,560 dynamic enhanced font \"sans,12\" background \"white\"\n";
  s << "set output \"" << svg.string() << "\"\n";
  s << data.str();
  s << "set title \"Energy per output token vs concurrency (steady-state window, mean and CI over trials)\"\n";
  s << "set xlabel \"concurrent requests\"\nset ylabel \"mJ per output token\"\n";
  s << "set logscale x 2\nset grid\nset key top right\nset yrange [0:*]\n";
  s << "plot ";
  for (std::size_t i = 0; i < plots.size(); ++i) s << (i ? ", \\\n     " : "") << plots[i];
  s << "\nunset output\n";
  return s.str();
}

}  // namespace ecocompute::experiment
