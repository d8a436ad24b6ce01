// Runner: loads every engine once, warms up, measures idle, then runs the trials in schedule order.
#include "protocol/runner.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <map>
#include <random>
#include <set>
#include <utility>

#include "meter/energy_split.hpp"
#include "util/check.hpp"
#include "util/defaults.hpp"
#include "util/log.hpp"

namespace ecocompute::protocol {

namespace {

// Longest single wait between two reads of the cancel flag.
constexpr Seconds kWaitSlice{0.25};

using engine::Token;

// The engine work of one iteration as the published protocol runs it: a fresh context, the prompt,
// then greedy tokens; at batch B the prompt starts B parallel sequences and every decode step
// generates one token of each, so generated_tokens = B × n_decode.
struct IterationWork {
  Seconds prefill{0.0};
  Seconds decode{0.0};
  std::int64_t prompt_tokens = 0;
  std::int64_t generated_tokens = 0;
};

Result<IterationWork> run_iteration(engine::Engine& engine, std::span<const Token> prompt, int batch,
                                    std::int64_t n_decode) {
  IterationWork work;
  if (Result<void> reset = engine.reset(); !reset) return reset.error();
  Result<engine::WorkStats> prefill = batch == 1 ? engine.prefill(prompt) : engine.prefill_sequences(prompt, batch);
  if (!prefill) return prefill.error();
  work.prefill = prefill->elapsed;
  work.prompt_tokens = prefill->tokens;
  if (n_decode > 0) {
    Result<engine::WorkStats> decode = engine.decode(n_decode);
    if (!decode) return decode.error();
    work.decode = decode->elapsed;
    work.generated_tokens = decode->tokens;
  }
  return work;
}

std::vector<std::string> throttle_names(const meter::Measurement& m) {
  std::set<std::string> names(m.at_begin.throttle_reason_names.begin(), m.at_begin.throttle_reason_names.end());
  names.insert(m.at_end.throttle_reason_names.begin(), m.at_end.throttle_reason_names.end());
  return {names.begin(), names.end()};
}

// One warning per condition whose every trial that ran was left out as throttled: the GPU runs it at a
// limit (at 14 B F16 on the H200, its power cap) each time, so that condition has no figure and
// nothing is compared with it. Counting such trials is the user's choice (--accept-throttled).
// One warning per condition whose decode windows kept the GPU busy less than the least share a
// measurement of the engine needs: below it the host sets the pace, and the host is what is measured.
std::vector<std::string> host_paced(std::span<const Condition> conditions, std::span<const TrialResult> trials) {
  std::vector<std::string> out;
  for (const Condition& c : conditions) {
    double sum = 0.0;
    int n = 0;
    for (const TrialResult& t : trials) {
      if (t.condition != c.index || !t.decode || !t.decode->measurement.gpu_busy_pct) continue;
      sum += *t.decode->measurement.gpu_busy_pct;
      ++n;
    }
    if (n > 0 && sum / n < defaults::min_gpu_busy_pct) {
      out.push_back(fmt::format("{}: the GPU was busy {:.1f} % of its decode windows (mean of {}), under {} %: the host, "
                                "not the GPU, set the pace of this work",
                                c.label(), sum / n, n, defaults::min_gpu_busy_pct));
    }
  }
  return out;
}

std::vector<std::string> always_throttled(std::span<const Condition> conditions, std::span<const TrialResult> trials) {
  std::vector<std::string> out;
  for (const Condition& c : conditions) {
    std::size_t ran = 0, throttled = 0;
    std::string reason;
    for (const TrialResult& t : trials) {
      if (t.condition != c.index || t.status == TrialStatus::not_run || t.status == TrialStatus::cancelled) continue;
      ++ran;
      if (t.status == TrialStatus::throttled) {
        ++throttled;
        constexpr std::string_view kPrefix = "throttled: ";
        if (reason.empty()) reason = t.reason.starts_with(kPrefix) ? t.reason.substr(kPrefix.size()) : t.reason;
      }
    }
    if (ran >= 2 && throttled == ran) {
      out.push_back(fmt::format("every trial of {} ({} of {}) was throttled ({}): the GPU ran it at a limit each time, so it "
                                "has no valid trial{}; where that limit is how the card runs this work, --accept-throttled "
                                "counts such trials, each flagged with its reason",
                                c.label(), throttled, ran, reason, c.is_baseline ? " and no candidate is compared with it" : ""));
    }
  }
  return out;
}

// What one window produced: the window itself, and the first failure inside it.
struct WindowOutcome {
  WindowResult window;
  std::optional<Error> engine_error;
  std::optional<Error> meter_error;
  bool interrupted = false;  ///< the cancel flag cut the window short: it is discarded
};

// One run of a Design. Holds the state the phases share; Runner::run() builds one per call.
class Execution {
 public:
  Execution(const Design& design, meter::Meter& meter, const EngineProvider& provider, Clock& clock,
            const ProgressCallback& progress, const std::atomic<bool>* cancel)
      : design_(design), meter_(meter), provider_(provider), clock_(clock), progress_(progress), cancel_(cancel) {}

  Result<RunResult> run(std::vector<std::string> warnings);

 private:
  [[nodiscard]] bool is_cancelled() const { return cancel_ != nullptr && cancel_->load(); }
  bool wait(Seconds duration);
  void report(Progress::Phase phase, const Condition* condition, std::string message);
  [[nodiscard]] Seconds planned_time_left(Progress::Phase phase) const;
  Result<void> load();
  void warm_up();
  void measure_idle();
  void decide();
  void run_trials();
  void run_trial(TrialResult& trial);
  Result<void> warm_up_trial(engine::Engine& engine, TrialResult& trial);
  bool target_reached(const std::vector<PairedComparison>& comparisons, int blocks, std::string& status) const;
  void stop_after_block(int block);
  void cool_down(TrialResult& trial);
  WindowOutcome measure_window(engine::Engine& engine, const Condition& condition, int repetition, WindowKind kind,
                               std::int64_t repeats);
  [[nodiscard]] std::optional<double> read_temperature();

  const Design& design_;
  meter::Meter& meter_;
  const EngineProvider& provider_;
  Clock& clock_;
  const ProgressCallback& progress_;
  const std::atomic<bool>* cancel_;

  RunResult run_;
  std::map<std::string, engine::Engine*> engines_;                  // by precision: loaded once, borrowed
  std::vector<engine::Engine*> engine_of_;                          // by condition; null when unusable
  std::vector<std::vector<Token>> prompts_;                         // by condition
  std::size_t trials_done_ = 0;
  std::optional<std::size_t> last_condition_run_;  // the condition of the last trial that ran its work
  Seconds trials_started_{0.0};
  bool gate_warned_ = false;
};

bool Execution::wait(Seconds duration) {
  const Seconds end = clock_.now() + duration;
  while (!is_cancelled()) {
    const Seconds left = end - clock_.now();
    if (left.value <= 0.0) return true;
    clock_.sleep_for(std::min(left, kWaitSlice));
  }
  return false;
}

void Execution::report(Progress::Phase phase, const Condition* condition, std::string message) {
  if (!progress_) return;
  Progress progress;
  progress.phase = phase;
  progress.trial = trials_done_;
  progress.n_trials = run_.trials.size();
  progress.condition = condition;
  progress.message = std::move(message);
  if (trials_done_ > 0 && phase != Progress::Phase::done) {
    const Seconds per_trial = (clock_.now() - trials_started_) / static_cast<double>(trials_done_);
    progress.eta = per_trial * static_cast<double>(run_.trials.size() - trials_done_);
  } else if (phase != Progress::Phase::done) {
    progress.eta = planned_time_left(phase);
    progress.eta_is_lower_bound = true;
  }
  progress_(progress);
}

// Before any trial has run there is no pace to extrapolate, so the plan gives a floor: the idle window
// when it is still to come, and every trial's windows at their shortest.
Seconds Execution::planned_time_left(Progress::Phase phase) const {
  Seconds left{0.0};
  if (phase == Progress::Phase::loading || phase == Progress::Phase::warmup || phase == Progress::Phase::idle) {
    left = left + design_.idle_window;
  }
  for (const TrialResult& trial : run_.trials) {
    left = left + design_.min_window;
    if (design_.prefill_windows_at(run_.conditions[trial.condition].batch)) left = left + design_.min_prefill_window;
  }
  return left;
}

Result<void> Execution::load() {
  // Every precision is loaded once, up front, and kept for the whole run: reloading between trials
  // would change the GPU's thermal state from trial to trial (and cost minutes for large models),
  // and the models we run all fit on the GPU together.
  std::map<std::string, std::string> failures;
  for (const Condition& condition : run_.conditions) {
    if (is_cancelled()) return {};
    if (engines_.contains(condition.precision) || failures.contains(condition.precision)) continue;
    report(Progress::Phase::loading, &condition, fmt::format("loading {}", condition.precision));
    try {
      Result<std::reference_wrapper<engine::Engine>> loaded = provider_(condition);
      if (loaded) {
        loaded->get().set_interrupt(cancel_);
        engines_.emplace(condition.precision, &loaded->get());
      } else {
        failures.emplace(condition.precision, loaded.error().describe());
      }
    } catch (const std::exception& e) {
      failures.emplace(condition.precision, fmt::format("loading threw: {}", e.what()));
    }
  }

  for (const Condition& condition : run_.conditions) {
    ConditionSetup& setup = run_.setups[condition.index];
    if (const auto failure = failures.find(condition.precision); failure != failures.end()) {
      setup.failure = "load failed: " + failure->second;
      continue;
    }
    engine::Engine& engine = *engines_.at(condition.precision);
    setup.loaded = true;
    setup.model = engine.model();
    setup.engine = engine.describe();
    Result<std::vector<Token>> text = engine.tokenize(design_.prompt.text, design_.prompt.add_bos);
    if (!text || text->empty()) {
      setup.failure = text ? std::string("the prompt tokenizes to no tokens")
                           : "tokenizing the prompt failed: " + text.error().describe();
      continue;
    }
    const bool has_bos = design_.prompt.add_bos && engine.bos() >= 0 && text->front() == engine.bos();
    prompts_[condition.index] = make_prompt(*text, has_bos, condition.prompt_tokens);
    setup.prompt_token_count = static_cast<std::int64_t>(prompts_[condition.index].size());
    engine_of_[condition.index] = &engine;
  }

  if (engines_.empty() && !failures.empty()) {
    std::string reasons;
    for (const auto& [precision, reason] : failures) {
      reasons += fmt::format("{}{}: {}", reasons.empty() ? "" : "; ", precision, reason);
    }
    return unexpected(ErrorCode::engine, "no precision could be loaded; nothing was measured: " + reasons);
  }
  return {};
}

void Execution::warm_up() {
  for (const Condition& condition : run_.conditions) {
    engine::Engine* engine = engine_of_[condition.index];
    if (engine == nullptr) continue;
    ConditionSetup& setup = run_.setups[condition.index];
    for (int i = 0; i < design_.warmups; ++i) {
      if (is_cancelled()) return;
      report(Progress::Phase::warmup, &condition,
             fmt::format("warm-up {}/{} {}", i + 1, design_.warmups, condition.label()));
      Result<IterationWork> work =
          run_iteration(*engine, prompts_[condition.index], condition.batch, design_.tokens_per_iteration);
      if (!work && is_cancelled()) return;  // interrupted, not failed
      if (!work) {
        setup.failure = fmt::format("warm-up {} failed: {}", i + 1, work.error().describe());
        engine_of_[condition.index] = nullptr;
        break;
      }
      setup.warmups.push_back(WarmupTiming{work->prefill, work->decode, work->prompt_tokens, work->generated_tokens});
    }
  }
}

void Execution::measure_idle() {
  if (design_.idle_window.value <= 0.0) {
    run_.idle.failure = "the design has no idle window";
    return;
  }
  report(Progress::Phase::idle, nullptr, fmt::format("idle window {:.0f} s", design_.idle_window.value));
  // Every model stays loaded (contexts open): this is the idle floor the measured work sits on.
  for (auto& [precision, engine] : engines_) engine->synchronize();
  meter::Window window = meter_.begin("idle");
  const bool completed = wait(design_.idle_window);
  Result<meter::Measurement> measurement = meter_.end(std::move(window));
  if (!completed) {
    run_.idle.failure = "cancelled during the idle window";
    return;
  }
  if (!measurement) {
    run_.idle.failure = "idle window: " + measurement.error().describe();
    return;
  }
  run_.idle.measurement = *measurement;
  const std::optional<Watts> power = measurement->average_power();
  if (measurement->is_valid() && power) {
    run_.idle.power = *power;
  } else {
    run_.idle.failure = fmt::format("idle window: {}{}", meter::to_string(measurement->status),
                                    measurement->invalid_reason.empty() ? "" : ": " + measurement->invalid_reason);
  }
}

void Execution::decide() {
  // The decode windows, per batch level: every condition of a level generates the same tokens, as
  // many as the level's fastest condition needs to fill the required window.
  std::optional<Seconds> measured_period;
  if (run_.idle.measurement) measured_period = run_.idle.measurement->counter_update_period;
  for (int batch : design_.batches.empty() ? std::vector<int>{1} : design_.batches) {
    std::optional<std::size_t> fastest;
    Seconds fastest_time{0.0};
    for (const Condition& condition : run_.conditions) {
      if (condition.batch != batch || engine_of_[condition.index] == nullptr) continue;
      const WarmupTiming& last = run_.setups[condition.index].warmups.back();
      const Seconds time = last.prefill + last.decode;
      if (!fastest || time < fastest_time) {
        fastest = condition.index;
        fastest_time = time;
      }
    }
    IterationDecision decision = decide_iterations(design_, fastest_time, measured_period, meter_.measures_energy());
    decision.batch = batch;
    decision.fastest_condition = fastest;
    if (fastest) decision.explanation += fmt::format(" Fastest condition: {}.", run_.conditions[*fastest].label());
    run_.iteration_decisions.push_back(std::move(decision));
  }

  // The prefill windows: per prompt length and batch, the same repeats for every precision.
  for (const Condition& condition : run_.conditions) {
    if (engine_of_[condition.index] == nullptr) continue;
    std::optional<Seconds> fastest_prefill;
    for (const Condition& other : run_.conditions) {
      if (other.prompt_tokens != condition.prompt_tokens || other.batch != condition.batch ||
          engine_of_[other.index] == nullptr) {
        continue;
      }
      const Seconds time = run_.setups[other.index].warmups.back().prefill;
      if (!fastest_prefill || time < *fastest_prefill) fastest_prefill = time;
    }
    const IterationDecision& decision = run_.decision_for(condition.batch);
    run_.setups[condition.index].prefill_repeats =
        decide_prefill_repeats(decision.required_prefill_window, *fastest_prefill, decision.safety_margin);
  }
}

std::optional<double> Execution::read_temperature() {
  // The meter reads telemetry at window edges; a window around no work is a telemetry read.
  meter::Window window = meter_.begin("temperature");
  Result<meter::Measurement> measurement = meter_.end(std::move(window));
  if (!measurement) return std::nullopt;
  return measurement->at_end.temperature_c;
}

void Execution::cool_down(TrialResult& trial) {
  const CoolDown& cool = design_.cool_down;
  const Seconds start = clock_.now();
  if (cool.pause.value > 0.0) {
    report(Progress::Phase::cool_down, &run_.conditions[trial.condition],
           fmt::format("cool-down {:.0f} s", cool.pause.value));
    if (!wait(cool.pause)) return;
  }
  if (cool.max_temperature_c) {
    const Seconds gate_start = clock_.now();
    while (!is_cancelled()) {
      const std::optional<double> temperature = read_temperature();
      if (!temperature) {
        if (!gate_warned_) {
          run_.warnings.emplace_back("cool_down.max_temperature_c: the meter reports no temperature; the gate "
                                     "did not wait");
          gate_warned_ = true;
        }
        break;
      }
      trial.temperature_start_c = temperature;
      if (*temperature <= *cool.max_temperature_c) break;
      if (clock_.now() - gate_start >= cool.gate_timeout) {
        trial.gate_timed_out = true;
        break;
      }
      report(Progress::Phase::cool_down, &run_.conditions[trial.condition],
             fmt::format("waiting for {:.0f} °C (now {:.0f} °C)", *cool.max_temperature_c, *temperature));
      if (!wait(cool.gate_poll)) break;
    }
  }
  trial.cool_down_wait = clock_.now() - start;
}

WindowOutcome Execution::measure_window(engine::Engine& engine, const Condition& condition, int repetition,
                                        WindowKind kind, std::int64_t repeats) {
  WindowOutcome outcome;
  WindowResult& w = outcome.window;
  w.kind = kind;
  const std::span<const Token> prompt = prompts_[condition.index];
  const std::int64_t n_decode = kind == WindowKind::decode ? design_.tokens_per_iteration : 0;

  // Window edges sit on synchronized work: whatever was queued before begin() is finished, and
  // everything inside is finished before end(), so the counter difference holds exactly this work.
  engine.synchronize();
  meter::Window window = meter_.begin(window_label(condition, repetition, kind));
  for (std::int64_t r = 0; r < repeats; ++r) {
    // The flag is read here and, inside the engine, before every token: Ctrl-C ends a window within
    // one decode step.
    if (is_cancelled()) {
      outcome.interrupted = true;
      break;
    }
    Result<IterationWork> work = run_iteration(engine, prompt, condition.batch, n_decode);
    if (!work && work.error().code() == ErrorCode::cancelled) {
      outcome.interrupted = true;
      break;
    }
    if (!work) {
      outcome.engine_error = work.error();
      break;
    }
    ++w.repeats;
    w.repeat_times.push_back(work->prefill + work->decode);
    if (kind == WindowKind::prefill) {
      w.tokens += work->prompt_tokens;
      w.engine_time += work->prefill;
    } else {
      w.tokens += work->generated_tokens;
      w.engine_time += work->prefill + work->decode;
      w.prefill_tokens_inside += work->prompt_tokens;
      w.prefill_time_inside += work->prefill;
    }
  }
  engine.synchronize();
  Result<meter::Measurement> measurement = meter_.end(std::move(window));
  if (outcome.interrupted) return outcome;  // closed, and discarded: it holds part of the work
  if (!measurement) {
    outcome.meter_error = measurement.error();
    return outcome;
  }
  w.measurement = std::move(*measurement);
  if (w.measurement.is_valid() && w.measurement.energy) {
    w.energy_gross = w.measurement.energy;
    if (run_.idle.power) {
      const meter::EnergySplit split = meter::split_energy(*w.energy_gross, w.measurement.duration, *run_.idle.power);
      w.energy_idle = split.idle;
      w.energy_net = split.net;
    }
  }
  return outcome;
}

Result<void> Execution::warm_up_trial(engine::Engine& engine, TrialResult& trial) {
  const Condition& condition = run_.conditions[trial.condition];
  const std::span<const Token> prompt = prompts_[trial.condition];
  const std::optional<std::size_t> before = std::exchange(last_condition_run_, trial.condition);
  const bool whole = design_.trial_warmup == TrialWarmup::every_trial || !before ||
               run_.conditions[*before].precision != condition.precision;
  if (!whole && *before == trial.condition) {
    trial.warmup = "none (the trial before ran the same condition)";
    return {};
  }
  if (whole) {
    trial.warmup = fmt::format("{} iteration{}", design_.trial_warmup_iterations,
                               design_.trial_warmup_iterations == 1 ? "" : "s");
    for (int i = 0; i < design_.trial_warmup_iterations; ++i) {
      Result<IterationWork> work = run_iteration(engine, prompt, condition.batch, design_.tokens_per_iteration);
      if (!work) return work.error();
    }
    return {};
  }
  // Same precision, another batch: the weights and clocks are warm; the new batch shape is not.
  const std::int64_t steps = std::min(design_.level_warmup_tokens, design_.tokens_per_iteration);
  trial.warmup = fmt::format("a prefill and {} decode steps at batch {} (batch changed from {})", steps,
                             condition.batch, run_.conditions[*before].batch);
  Result<IterationWork> work = run_iteration(engine, prompt, condition.batch, steps);
  if (!work) return work.error();
  return {};
}

void Execution::run_trial(TrialResult& trial) {
  const Condition& condition = run_.conditions[trial.condition];
  engine::Engine* engine = engine_of_[trial.condition];
  if (engine == nullptr) {
    trial.status = TrialStatus::engine_failed;
    trial.reason = run_.setups[trial.condition].failure;
    return;
  }
  cool_down(trial);
  if (is_cancelled()) return;  // stays not_run
  trial.started_utc = clock_.utc_now();
  report(Progress::Phase::trial, &condition,
         fmt::format("trial {}/{} {} #{}", trial.index + 1, run_.trials.size(), condition.label(),
                     trial.repetition + 1));

  if (Result<void> warm = warm_up_trial(*engine, trial); !warm) {
    const bool interrupted = is_cancelled();
    trial.status = interrupted ? TrialStatus::cancelled : TrialStatus::engine_failed;
    trial.reason = interrupted ? "interrupted during the trial's warm-up, before its windows"
                               : "trial warm-up: " + warm.error().describe();
    return;
  }

  const std::int64_t prefill_repeats = run_.setups[trial.condition].prefill_repeats;
  const std::int64_t iterations = run_.decision_for(condition.batch).iterations;
  std::vector<std::string> throttling;
  for (WindowKind kind : {WindowKind::prefill, WindowKind::decode}) {
    if (kind == WindowKind::prefill && !design_.prefill_windows_at(condition.batch)) continue;
    WindowOutcome outcome = measure_window(*engine, condition, trial.repetition, kind,
                                           kind == WindowKind::prefill ? prefill_repeats : iterations);
    const std::string_view name = to_string(kind);
    if (outcome.interrupted) {
      trial.status = TrialStatus::cancelled;
      trial.reason = fmt::format("interrupted during the {} window; the unfinished window was discarded", name);
      return;
    }
    (kind == WindowKind::prefill ? trial.prefill : trial.decode) = outcome.window;
    if (outcome.engine_error) {
      trial.status = TrialStatus::engine_failed;
      trial.reason = fmt::format("{} window: {}", name, outcome.engine_error->describe());
      return;
    }
    if (outcome.meter_error) {
      trial.status = TrialStatus::invalid_window;
      trial.reason = fmt::format("{} window: {}", name, outcome.meter_error->describe());
      return;
    }
    const meter::Measurement& m = outcome.window.measurement;
    // A meter that measures no energy (no NVML, no RAPL) returns `unavailable` windows by design:
    // such a trial still measures throughput and is not a failure.
    if (!m.is_valid() && meter_.measures_energy()) {
      trial.status = TrialStatus::invalid_window;
      trial.reason = fmt::format("{} window: {}{}", name, meter::to_string(m.status),
                                 m.invalid_reason.empty() ? "" : ": " + m.invalid_reason);
      return;
    }
    for (const std::string& reason : throttle_names(m)) {
      const std::string entry = fmt::format("{} ({})", reason, name);
      if (std::find(throttling.begin(), throttling.end(), entry) == throttling.end()) throttling.push_back(entry);
    }
  }

  trial.status = TrialStatus::ok;
  trial.reason.clear();  // the "not run" reason every trial starts with
  if (!throttling.empty()) {
    trial.throttled = true;
    const std::string names = fmt::format("{}", fmt::join(throttling, ", "));
    if (design_.accept_throttled) {
      trial.reason = "throttled, accepted by the design: " + names;
    } else {
      trial.status = TrialStatus::throttled;
      trial.reason = "throttled: " + names;
    }
  }
}

void Execution::run_trials() {
  trials_started_ = clock_.now();
  for (TrialResult& trial : run_.trials) {
    if (is_cancelled()) break;
    try {
      run_trial(trial);
    } catch (const std::exception& e) {
      // The boundary of one trial: whatever went wrong inside, the run goes on.
      trial.status = TrialStatus::engine_failed;
      trial.reason = fmt::format("exception: {}", e.what());
    }
    if (trial.status == TrialStatus::not_run) break;  // cancelled during its cool-down
    ++trials_done_;
    if (trial.status == TrialStatus::cancelled) {
      log::warn("trial {} ({}): {}", trial.index + 1, trial.precision, trial.reason);
      break;
    }
    if (!trial.is_ok()) log::warn("trial {} ({}): {}: {}", trial.index + 1, trial.precision, to_string(trial.status),
                                  trial.reason);
    report(Progress::Phase::trial, &run_.conditions[trial.condition],
           fmt::format("trial {}/{} {} #{}: {}", trial.index + 1, run_.trials.size(),
                       run_.conditions[trial.condition].label(), trial.repetition + 1, to_string(trial.status)));
    const bool block_done = trial.index + 1 == run_.trials.size() || run_.trials[trial.index + 1].block != trial.block;
    if (design_.target_ci_pt && block_done && trial.block + 1 >= design_.min_trials) {
      std::string status;
      const bool reached = target_reached(compare_paired(run_.conditions, run_.trials, sequential_confidence(design_)),
                                          trial.block + 1, status);
      log::info("after block {}: {}", trial.block + 1, status);
      if (reached) {
        stop_after_block(trial.block);
        break;
      }
    }
  }
}

bool Execution::target_reached(const std::vector<PairedComparison>& comparisons, int blocks,
                               std::string& status) const {
  // The decode ΔE (gross) is what a verdict rests on; every candidate must be within the target.
  bool all = true;
  std::vector<std::string> parts;
  for (const Condition& condition : run_.conditions) {
    if (condition.is_baseline) continue;
    const auto found = std::find_if(comparisons.begin(), comparisons.end(), [&](const PairedComparison& c) {
      return c.condition == condition.index && c.metric == "decode_energy_per_token_gross_mj";
    });
    if (found == comparisons.end() || !found->delta_pct.ci_half_width) {
      all = false;
      parts.push_back(fmt::format("{}: fewer than 2 valid pairs", condition.label()));
      continue;
    }
    const double half = *found->delta_pct.ci_half_width;
    if (half > *design_.target_ci_pt) all = false;
    parts.push_back(fmt::format("{} {:+.2f} ± {:.2f} pt", condition.label(), found->delta_pct.mean, half));
  }
  status = fmt::format("{} after {} blocks at {:.2f} % per look: {}", all ? "target reached" : "target not reached",
                       blocks, sequential_confidence(design_) * 100.0, fmt::join(parts, ", "));
  return all;
}

void Execution::stop_after_block(int block) {
  // The blocks after this one were planned as the most the rule may take, never run: they leave the
  // run (and its trial count) rather than appear as cancelled or failed trials.
  const auto beyond = [block](const auto& t) { return t.block > block; };
  std::erase_if(run_.trials, beyond);
  std::erase_if(run_.schedule.trials, beyond);
  run_.schedule.blocks = block + 1;
}

Result<RunResult> Execution::run(std::vector<std::string> warnings) {
  run_.design = design_;
  run_.warnings = std::move(warnings);
  run_.conditions = design_.expand();
  run_.schedule = Schedule::make(run_.conditions, design_.trials, design_.order, design_.seed.value());
  run_.meter_source = meter_.source();
  run_.meter_device = meter_.device();
  run_.meter_measures_energy = meter_.measures_energy();
  run_.started_utc = clock_.utc_now();
  for (const Condition& condition : run_.conditions) {
    ConditionSetup setup;
    setup.condition = condition.index;
    setup.precision = condition.precision;
    run_.setups.push_back(std::move(setup));
  }
  for (const ScheduledTrial& scheduled : run_.schedule.trials) {
    TrialResult trial;
    trial.index = scheduled.index;
    trial.condition = scheduled.condition;
    trial.precision = run_.conditions[scheduled.condition].precision;
    trial.repetition = scheduled.repetition;
    trial.block = scheduled.block;
    trial.reason = "the run was cancelled before this trial";
    run_.trials.push_back(std::move(trial));
  }
  engine_of_.assign(run_.conditions.size(), nullptr);
  prompts_.assign(run_.conditions.size(), {});
  log::info("{}", run_.schedule.describe(run_.conditions));

  if (Result<void> loaded = load(); !loaded) return loaded.error();
  if (!is_cancelled()) warm_up();
  const bool any_usable = std::any_of(engine_of_.begin(), engine_of_.end(), [](auto* e) { return e != nullptr; });
  if (!is_cancelled() && any_usable) {
    measure_idle();
    if (!is_cancelled()) decide();
    if (!is_cancelled()) run_trials();
  } else if (!is_cancelled()) {
    // Nothing can be measured, but every trial still gets its row and reason.
    for (TrialResult& trial : run_.trials) {
      trial.status = TrialStatus::engine_failed;
      trial.reason = run_.setups[trial.condition].failure;
    }
  }
  run_.cancelled = is_cancelled();
  run_.summaries = summarize_conditions(run_.conditions, run_.trials);
  run_.comparisons = compare_paired(run_.conditions, run_.trials, sequential_confidence(design_));
  if (design_.target_ci_pt) {
    SequentialStop stop;
    stop.target_ci_pt = *design_.target_ci_pt;
    stop.min_trials = design_.min_trials;
    stop.max_trials = design_.trials;
    stop.confidence = sequential_confidence(design_);
    for (const TrialResult& trial : run_.trials) {
      if (trial.status != TrialStatus::not_run && trial.status != TrialStatus::cancelled) {
        stop.blocks_run = std::max(stop.blocks_run, trial.block + 1);
      }
    }
    std::string status;
    stop.reached = stop.blocks_run >= design_.min_trials && target_reached(run_.comparisons, stop.blocks_run, status);
    if (status.empty()) status = fmt::format("stopped after {} blocks, before the rule's first look", stop.blocks_run);
    stop.explanation = fmt::format(
        "Sequential rule: up to {} blocks, looks after blocks {} … {}, stop once every candidate's paired decode "
        "ΔE interval is within ± {} pt; each interval at {:.2f} % so that the one reported covers with ≥ 95 % "
        "whatever look stopped the run (Bonferroni over the looks). {}.",
        stop.max_trials, stop.min_trials, stop.max_trials, stop.target_ci_pt, stop.confidence * 100.0, status);
    run_.stop = std::move(stop);
  }
  for (std::string& warning : throughput_outliers(run_.conditions, run_.trials)) {
    log::warn("{}", warning);
    run_.warnings.push_back(std::move(warning));
  }
  for (std::string& warning : host_paced(run_.conditions, run_.trials)) {
    log::warn("{}", warning);
    run_.warnings.push_back(std::move(warning));
  }
  for (std::string& warning : always_throttled(run_.conditions, run_.trials)) {
    log::warn("{}", warning);
    run_.warnings.push_back(std::move(warning));
  }
  run_.finished_utc = clock_.utc_now();
  report(Progress::Phase::done, nullptr, run_.cancelled ? "cancelled" : "done");
  return std::move(run_);
}

}  // namespace

std::string_view to_string(Progress::Phase phase) noexcept {
  switch (phase) {
    case Progress::Phase::loading: return "loading";
    case Progress::Phase::warmup: return "warmup";
    case Progress::Phase::idle: return "idle";
    case Progress::Phase::cool_down: return "cool_down";
    case Progress::Phase::trial: return "trial";
    case Progress::Phase::done: return "done";
  }
  return "unknown";
}

Runner::Runner(ValidatedDesign design, meter::Meter& meter, EngineProvider provider, Clock& clock)
    : design_(std::move(design)), meter_(meter), provider_(std::move(provider)), clock_(clock) {}

Result<RunResult> Runner::run() {
  Design design = design_.design();
  if (!design.seed) {
    std::random_device device;
    design.seed = (static_cast<std::uint64_t>(device()) << 32) | device();
  }
  Execution execution(design, meter_, provider_, clock_, progress_, cancel_);
  return execution.run(design_.warnings());
}

std::string window_label(const Condition& condition, int repetition, WindowKind kind) {
  return fmt::format("{} #{} {}", condition.label(), repetition + 1, to_string(kind));
}

std::vector<Token> make_prompt(std::span<const Token> text_tokens, bool has_bos, std::int64_t length) {
  ECO_CHECK(!text_tokens.empty(), "make_prompt needs at least one text token");
  if (length <= 0) return {text_tokens.begin(), text_tokens.end()};
  std::vector<Token> prompt;
  std::span<const Token> body = text_tokens;
  if (has_bos) {
    prompt.push_back(text_tokens.front());
    if (text_tokens.size() > 1) body = text_tokens.subspan(1);
  }
  for (std::size_t i = 0; static_cast<std::int64_t>(prompt.size()) < length; ++i) {
    prompt.push_back(body[i % body.size()]);
  }
  prompt.resize(static_cast<std::size_t>(length));
  return prompt;
}

}  // namespace ecocompute::protocol
