// RunResult: everything one measurement run produced, failed and cancelled trials included.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/engine.hpp"
#include "meter/measurement.hpp"
#include "protocol/condition.hpp"
#include "protocol/design.hpp"
#include "protocol/schedule.hpp"
#include "protocol/statistics.hpp"
#include "protocol/trial_result.hpp"
#include "util/units.hpp"

namespace ecocompute::protocol {

/// One warm-up iteration's host timing (reset + prefill + decode of tokens_per_iteration tokens).
struct WarmupTiming {
  Seconds prefill{0.0};
  Seconds decode{0.0};
  std::int64_t prompt_tokens = 0;
  std::int64_t generated_tokens = 0;
};

/// The engine of one condition, as loaded (each precision is loaded once and shared by its
/// conditions), and what was decided for it.
struct ConditionSetup {
  std::size_t condition = 0;
  std::string precision;
  bool loaded = false;
  std::string failure;                        ///< why loading, tokenizing or warming up failed
  std::optional<engine::ModelInfo> model;
  std::optional<engine::EngineDescription> engine;
  std::int64_t prompt_token_count = 0;        ///< actual tokens fed per prefill (BOS included)
  std::vector<WarmupTiming> warmups;
  std::int64_t prefill_repeats = 0;           ///< prefills per prefill window
};

/// How the decode window's iteration count and the prefill windows' repeats were chosen: the
/// smallest counts that make the fastest condition's windows last the required time, with a safety
/// margin; never fewer iterations than requested. Decode: required = max(min_window, update period
/// / (max_edge_error_pct / 100)). Prefill: required = min_prefill_window (its edge bound is
/// reported per window). The same iteration count is used for every condition, so all precisions
/// generate the same tokens.
struct IterationDecision {
  int batch = 1;                              ///< the batch level these windows are sized for
  int requested_iterations = 0;
  int iterations = 0;                         ///< chosen
  std::int64_t tokens_per_iteration = 0;
  Seconds counter_update_period{0.0};
  bool update_period_measured = false;        ///< false: Design::assumed_counter_update_period
  Seconds required_decode_window{0.0};
  Seconds required_prefill_window{0.0};
  double safety_margin = 1.0;                 ///< factor applied to the fastest warm-up time
  std::optional<std::size_t> fastest_condition;  ///< the condition whose timing decided
  Seconds fastest_iteration_time{0.0};        ///< its last warm-up's decode (+ prefill) time
  Seconds predicted_decode_window{0.0};       ///< iterations × fastest_iteration_time
  std::string explanation;                    ///< one sentence for the report
};

/// The idle window with every model loaded: its measurement and the power it gives.
struct IdleResult {
  std::optional<meter::Measurement> measurement;
  std::optional<Watts> power;                 ///< energy / duration; absent when the window is invalid
  std::string failure;                        ///< why there is no idle power
};

/// The whole run: the design and plan, every trial (failed and not-run ones too), the idle
/// baseline, per-condition summaries and the paired ΔE statistics against the baseline.
/// What the sequential rule (Design::target_ci_pt) did.
struct SequentialStop {
  double target_ci_pt = 0.0;
  int min_trials = 0;
  int max_trials = 0;
  double confidence = 0.0;       ///< of every paired ΔE interval: sequential_confidence()
  int blocks_run = 0;            ///< complete blocks when the run ended
  bool reached = false;          ///< every candidate's interval was within the target at the end
  std::string explanation;
};

struct RunResult {
  Design design;                              ///< with the seed actually used filled in
  std::vector<Condition> conditions;          ///< Design::expand()
  Schedule schedule;
  std::vector<ConditionSetup> setups;         ///< one per condition, same order
  /// One per batch level, in Design::batches order: every condition of a level generates the same
  /// tokens, as many as that level's fastest condition needs to fill the window.
  std::vector<IterationDecision> iteration_decisions;
  IdleResult idle;
  std::vector<TrialResult> trials;            ///< one per scheduled trial, in run order
  std::vector<ConditionSummary> summaries;    ///< one per condition
  std::vector<PairedComparison> comparisons;  ///< candidate × paired metric, at sequential_confidence(design)
  std::optional<SequentialStop> stop;         ///< present when the design has a target CI

  std::string meter_source;                   ///< Meter::source()
  std::string meter_device;                   ///< Meter::device()
  bool meter_measures_energy = false;

  std::string started_utc;                    ///< ISO 8601 ("2026-11-29T17:02:03Z")
  std::string finished_utc;
  bool cancelled = false;                     ///< the cancel flag stopped the run
  std::vector<std::string> warnings;          ///< validation warnings and notes made while running

  /// Returns the decision for a batch level; the first one when the level has none (a run that
  /// stopped before deciding has none at all: then a default).
  [[nodiscard]] const IterationDecision& decision_for(int batch) const;
  /// Returns the trials whose status is not ok (interrupted and not-run ones included).
  [[nodiscard]] std::size_t count_not_ok() const noexcept;
  /// Returns the trials that failed (TrialResult::failed(): not the interrupted or never-run ones).
  [[nodiscard]] std::size_t count_failed() const noexcept;
  /// Returns the comparison of `condition` for `metric`, or nullptr.
  [[nodiscard]] const PairedComparison* find_comparison(std::size_t condition,
                                                        std::string_view metric) const;
};

}  // namespace ecocompute::protocol
