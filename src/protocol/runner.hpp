// Runner: runs a Design on a Meter and the engines of its conditions, trial by trial, in schedule order.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.hpp"
#include "meter/meter.hpp"
#include "util/clock.hpp"
#include "protocol/condition.hpp"
#include "protocol/design.hpp"
#include "protocol/run_result.hpp"
#include "protocol/trial_result.hpp"
#include "protocol/window_sizing.hpp"
#include "util/result.hpp"

namespace ecocompute::protocol {

/// Returns the loaded engine of a condition's precision, which the caller owns and keeps alive until
/// the runner's run() has returned (the quality probe then reuses the same loaded weights). Called
/// once per distinct precision, with the first condition of that precision; an error is recorded
/// against every condition of the precision.
using EngineProvider = std::function<Result<std::reference_wrapper<engine::Engine>>(const Condition&)>;

/// Where the run is, for a progress bar.
struct Progress {
  enum class Phase { loading, warmup, idle, cool_down, trial, done };
  Phase phase = Phase::loading;
  std::size_t trial = 0;             ///< trials finished so far (any status)
  std::size_t n_trials = 0;          ///< trials scheduled
  const Condition* condition = nullptr;  ///< the condition being worked on, if any; valid during the call
  std::optional<Seconds> eta;        ///< remaining time, from the trials finished so far
  bool eta_is_lower_bound = false;   ///< before the first trial: eta is the plan's floor (shortest windows)
  std::string message;               ///< one line, e.g. "trial 3/9 Q8_0 (block 1)"
};

/// Returns "loading", "warmup", "idle", "cool_down", "trial" or "done".
[[nodiscard]] std::string_view to_string(Progress::Phase phase) noexcept;

/// Called on the runner's thread at every phase change and after every trial; must not throw.
using ProgressCallback = std::function<void(const Progress&)>;

/// Runs a measurement:
///   1. loads every precision's engine once, up front, and tokenizes the prompt(s);
///   2. runs Design::warmups iterations per condition and decides the window lengths from them;
///   3. measures the idle window with every model loaded;
///   4. runs the trials in schedule order: cool-down / gate, the trial's own warm-up, then a
///      prefill window and a decode window, each `engine.synchronize(); meter.begin(); work;
///      engine.synchronize(); meter.end()`.
/// A failed trial becomes a TrialResult with its status and reason and the run goes on. The cancel
/// flag is read between trials, during waits, between iterations and (through Engine::set_interrupt)
/// before every token: the trial it interrupts is `cancelled` with its unfinished window discarded,
/// and the trials after it are `not_run`.
///
///   auto design = validate(std::move(d));                // once, where the design is made
///   Runner runner(*design, meter, provider, *system_clock());
///   runner.set_cancel_flag(&interrupted);
///   Result<RunResult> run = runner.run();
class Runner {
 public:
  /// `meter` and `clock` must outlive the runner.
  Runner(ValidatedDesign design, meter::Meter& meter, EngineProvider provider, Clock& clock);

  void set_progress(ProgressCallback callback) { progress_ = std::move(callback); }
  /// `flag` (set by a signal handler) must outlive run(); nullptr disables cancellation.
  void set_cancel_flag(const std::atomic<bool>* flag) noexcept { cancel_ = flag; }

  /// Runs the design. Returns an engine error when no precision's engine could be loaded (nothing was
  /// measured); otherwise a RunResult with every scheduled trial, whatever became of it.
  [[nodiscard]] Result<RunResult> run();

 private:
  ValidatedDesign design_;
  meter::Meter& meter_;
  EngineProvider provider_;
  Clock& clock_;
  ProgressCallback progress_;
  const std::atomic<bool>* cancel_ = nullptr;
};

/// Returns the meter label of a trial's window: "<condition label> #<repetition + 1> <kind>", e.g.
/// "Q8_0 #2 decode". The idle window is labelled "idle" and a temperature-gate read "temperature".
[[nodiscard]] std::string window_label(const Condition& condition, int repetition, WindowKind kind);

/// Returns the prompt tokens for a prompt length: `text_tokens` (BOS first when present) repeated
/// after the BOS and cut to `length`; `length` 0 returns `text_tokens` unchanged. `text_tokens`
/// must not be empty.
[[nodiscard]] std::vector<engine::Token> make_prompt(std::span<const engine::Token> text_tokens,
                                                     bool has_bos, std::int64_t length);

}  // namespace ecocompute::protocol
