// TrialResult: one trial's prefill and decode windows, engine work, status and reason.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "meter/measurement.hpp"
#include "util/result.hpp"
#include "util/units.hpp"

namespace ecocompute::protocol {

/// What became of a trial. Only `ok` trials enter the statistics.
enum class TrialStatus {
  ok,              ///< both windows valid (a throttled trial is ok when the design accepts throttling; flagged)
  throttled,       ///< the GPU reported throttling at a window edge
  invalid_window,  ///< the meter returned an invalid window (counter reset, stuck, read failed, unavailable)
  engine_failed,   ///< the engine failed to load, warm up, prefill or decode
  cancelled,       ///< interrupted (Ctrl-C) while it ran; its unfinished window was discarded
  not_run,         ///< the run was interrupted before this trial
};

/// Returns "ok", "throttled", "invalid_window", "engine_failed", "cancelled" or "not_run".
[[nodiscard]] std::string_view to_string(TrialStatus status) noexcept;
/// Parses the spellings above; any other text is an invalid_argument error naming it.
[[nodiscard]] Result<TrialStatus> parse_trial_status(std::string_view text);

/// Which part of the work a window covers.
enum class WindowKind { prefill, decode, idle };
/// Returns "prefill", "decode" or "idle".
[[nodiscard]] std::string_view to_string(WindowKind kind) noexcept;

/// One measured window with its engine work and energy split.
///
/// A prefill window holds `repeats` × (reset, prefill of the prompt); its `tokens` are prompt
/// tokens. A decode window holds `repeats` iterations × (reset, prefill of the prompt, decode of
/// tokens_per_iteration tokens), like the published protocol; its `tokens` are generated tokens,
/// and the prefill work inside it is recorded in `prefill_tokens_inside` / `prefill_time_inside`.
struct WindowResult {
  WindowKind kind = WindowKind::decode;
  meter::Measurement measurement;     ///< as returned by the meter (duration, energy, telemetry, trace)
  std::int64_t repeats = 0;           ///< prefills (prefill window) or iterations (decode window)
  std::int64_t tokens = 0;            ///< prompt tokens (prefill) or generated tokens (decode)
  Seconds engine_time{0.0};           ///< sum of the engine's WorkStats.elapsed inside the window
  std::int64_t prefill_tokens_inside = 0;  ///< decode window only: prompt tokens fed inside it
  Seconds prefill_time_inside{0.0};        ///< decode window only: engine time of those prefills
  /// Engine time of each repeat, in order: whether the first iteration after a warm-up still paid
  /// one-off costs (it would be slower than the rest) is read from these.
  std::vector<Seconds> repeat_times;

  std::optional<Joules> energy_gross;  ///< the meter's counter energy (valid windows only)
  std::optional<Joules> energy_idle;   ///< idle power × window duration (when idle power is known)
  std::optional<Joules> energy_net;    ///< gross − idle

  /// Returns gross energy per token in millijoules, when gross energy and tokens are present.
  [[nodiscard]] std::optional<double> energy_per_token_gross_mj() const;
  /// Returns net energy per token in millijoules, when net energy and tokens are present.
  [[nodiscard]] std::optional<double> energy_per_token_net_mj() const;
  /// Returns tokens / window duration, when the duration is positive.
  [[nodiscard]] std::optional<double> throughput_tokens_per_s() const;
  /// Returns gross energy / duration.
  [[nodiscard]] std::optional<Watts> average_power() const;
  /// Returns the counter-edge bound (edge uncertainty / gross energy × 100), when both are known.
  [[nodiscard]] std::optional<double> edge_uncertainty_pct() const;
};

/// One trial: a condition's repetition, its two windows and what became of it. Failed trials keep
/// whatever was measured before the failure.
struct TrialResult {
  std::size_t index = 0;      ///< ScheduledTrial::index
  std::size_t condition = 0;  ///< Condition::index
  std::string precision;      ///< copied from the condition, for readers of one trial
  int repetition = 0;         ///< 0-based
  int block = 0;              ///< 0-based; pairs a candidate with the baseline of the same block

  TrialStatus status = TrialStatus::not_run;
  std::string reason;         ///< empty when ok (unless throttling was accepted: then it says so)
  bool throttled = false;     ///< throttling seen at a window edge (also when accepted)

  std::string started_utc;    ///< ISO 8601, empty when not run
  Seconds cool_down_wait{0.0};              ///< pause + gate time before the trial
  std::optional<double> temperature_start_c;  ///< last gate reading, when the gate ran
  bool gate_timed_out = false;              ///< the temperature gate gave up and the trial ran anyway
  std::string warmup;                       ///< the warm-up before its windows, e.g. "1 iteration"

  std::optional<WindowResult> prefill;
  std::optional<WindowResult> decode;

  /// Returns whether the trial enters the statistics (status ok).
  [[nodiscard]] bool is_ok() const noexcept { return status == TrialStatus::ok; }
  /// Returns whether the trial failed (throttled, invalid window, engine failure): an interrupted or
  /// never-run trial did not fail.
  [[nodiscard]] bool failed() const noexcept {
    return status == TrialStatus::throttled || status == TrialStatus::invalid_window ||
           status == TrialStatus::engine_failed;
  }
};

}  // namespace ecocompute::protocol
