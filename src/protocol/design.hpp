// Design: the factors of a measurement run and their levels, as the user wrote them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/condition.hpp"
#include "protocol/sequential_rule.hpp"
#include "util/defaults.hpp"
#include "util/precision.hpp"
#include "util/result.hpp"
#include "util/units.hpp"

namespace ecocompute::protocol {

/// The fixed default prompt: one short English sentence of about ten tokens, the length of the
/// published protocol's prompt. It is recorded in every run.
inline constexpr std::string_view kDefaultPromptText =
    "Explain in simple terms how a language model works.";

/// The prompt fed before decoding, and the prompt lengths to measure.
struct PromptSpec {
  std::string text{kDefaultPromptText};
  bool add_bos = true;  ///< prepend BOS when the vocab has one
  /// Prompt lengths in tokens (BOS included), each a level of the design; the text's tokens are
  /// repeated and cut to reach each length. Empty: the text's own length, the only level.
  std::vector<std::int64_t> lengths_tokens;
};

/// A pause and/or a temperature gate before every trial. The temperature is read from the meter's
/// telemetry (a zero-work window), so a meter that reports no temperature makes the gate a no-op
/// that is recorded as such.
struct CoolDown {
  Seconds pause{0.0};                       ///< fixed wait before each trial
  std::optional<double> max_temperature_c;  ///< wait until the GPU reads at or below this
  Seconds gate_poll{1.0};                   ///< how often the gate reads the temperature
  Seconds gate_timeout{120.0};              ///< the trial starts anyway after this, flagged in its result
};

/// How trials are ordered (spelled as on the command line).
enum class ScheduleOrder {
  alternating,  ///< blocks of every condition, every other block reversed: B C1 C2 | C2 C1 B | …
  shuffled,     ///< every block a seeded random permutation of the conditions
};

/// When a trial warms the engine up before its windows (spelled as on the command line).
enum class TrialWarmup {
  every_trial,  ///< "every": trial_warmup_iterations whole iterations before every trial
  on_change,    ///< "change": whole iterations only when the precision changes from the trial before;
                ///< when only the batch changes, a prefill and level_warmup_tokens decode steps at the
                ///< new batch; nothing when the trial before ran the same condition
};

/// Returns "every" or "change".
[[nodiscard]] std::string_view to_string(TrialWarmup warmup) noexcept;
/// Parses "every" / "change"; any other text is an invalid_argument error naming it.
[[nodiscard]] Result<TrialWarmup> parse_trial_warmup(std::string_view text);

/// Returns "alternating" or "shuffled".
[[nodiscard]] std::string_view to_string(ScheduleOrder order) noexcept;
/// Parses "alternating" / "shuffled"; any other text is an invalid_argument error naming it.
[[nodiscard]] Result<ScheduleOrder> parse_schedule_order(std::string_view text);

/// The factors of a run and their levels, as the user wrote them. Defaults (util/defaults.hpp) follow
/// the published protocol (batch 1, 256 tokens × 10 iterations, 2 warm-ups) and then extend it: k
/// trials per condition, interleaved with the baseline, separate prefill and decode windows, an idle
/// window.
///
///   Design design;
///   design.model = "model-f16.gguf";
///   design.candidates = {"Q8_0", "Q4_K_M"};
///   if (auto checked = validate(design); !checked) return checked.error();
///   for (const Condition& c : design.expand()) ...
struct Design {
  std::filesystem::path model;          ///< source GGUF; the engine provider resolves each precision from it
  std::string baseline{defaults::baseline};  ///< F16 by default; BF16 (or F32) selectable
  std::vector<std::string> candidates{defaults::candidates.begin(), defaults::candidates.end()};  ///< GGUF type names
  /// The precisions are labels of programs the command engine runs ("FP16", "NF4" …), not GGUF types
  /// of one model file: any name of 1–32 letters, digits and _, and the baseline need not be a float type.
  bool precision_labels = false;

  int trials = defaults::trials;        ///< k: trials (repetitions) per condition; one per block; the most with target_ci_pt
  /// Sequential stopping (`--target-ci`): from block min_trials on, the run stops after a block once
  /// every candidate's paired decode ΔE CI is within ± target_ci_pt. See sequential_confidence().
  std::optional<double> target_ci_pt;
  int min_trials = defaults::min_trials;
  int warmups = defaults::warmups;      ///< unmeasured iterations per condition after loading
  int trial_warmup_iterations = defaults::trial_warmup_iterations;  ///< right before each trial's windows
  TrialWarmup trial_warmup = TrialWarmup::every_trial;
  /// Decode steps of the warm-up at a batch change under TrialWarmup::on_change: the first steps at a
  /// new batch shape pay llama.cpp's one-off work for it (graph reservation, kernel selection).
  std::int64_t level_warmup_tokens = defaults::level_warmup_tokens;

  std::int64_t tokens_per_iteration = defaults::tokens_per_iteration;  ///< per sequence per iteration (context reset between)
  /// Parallel sequences per decode step, each a level of the design: the prompt is prefilled into
  /// every sequence and each step decodes one token of each, so an iteration generates
  /// batch × tokens_per_iteration tokens.
  std::vector<int> batches{defaults::measure_batches.begin(), defaults::measure_batches.end()};
  int iterations = defaults::iterations;  ///< requested iterations per decode window (a minimum)
  // Decode windows are sized per batch level (RunResult::iteration_decisions): one iteration at batch
  // 64 generates 64 times the tokens of one at batch 1, so a count shared by every level made the
  // large batches' windows tens of seconds long where the small ones needed seconds.
  Seconds min_window{defaults::min_window_s};  ///< a decode window lasts at least this long
  double max_edge_error_pct = defaults::max_edge_error_pct;  ///< counter-edge error bound: update period / window ≤ this
  /// Correct each window edge for the counter's staleness from the power trace (`--edges corrected`):
  /// the edge bound then comes from each window's own correction, not from the update period, so
  /// windows need only be as long as min_window.
  bool correct_edges = defaults::edges == "corrected";
  Seconds assumed_counter_update_period{defaults::assumed_counter_update_period_s};  ///< when the meter did not measure it
  Seconds min_prefill_window{defaults::min_prefill_window_s};  ///< a prefill window (repeated prefills) lasts at least this
  /// Prefill windows at every batch level, or only at the first (`--prefill-windows first-batch`): the
  /// prompt is computed once whatever the batch (its KV cells then copied to every sequence), so at the
  /// other levels a prefill window repeats the first level's work, at 8 B for up to 2 s per trial.
  bool prefill_at_every_batch = defaults::prefill_windows == "every-batch";

  PromptSpec prompt;
  Seconds idle_window{defaults::idle_window_s};  ///< idle window with every model loaded
  CoolDown cool_down;

  ScheduleOrder order = ScheduleOrder::alternating;
  std::optional<std::uint64_t> seed;    ///< drawn at run time when absent; always recorded
  bool accept_throttled = false;        ///< count throttled trials in the statistics (flagged)

  /// Returns whether trials at this batch level measure a prefill window.
  [[nodiscard]] bool prefill_windows_at(int batch) const;
  /// Returns the largest batch level (the parallel sequences an engine must hold).
  [[nodiscard]] int max_batch() const;
  /// Returns every precision, baseline first, in the order given.
  [[nodiscard]] std::vector<std::string> precisions() const;
  /// Returns the cross-product precision × prompt length × batch, baseline first; indices are positions.
  [[nodiscard]] std::vector<Condition> expand() const;
};

/// Returns the confidence of each paired ΔE interval the run computes. Without target_ci_pt, 0.95.
/// With it, the run looks at its intervals after each of blocks min_trials … trials, and stopping at
/// the first narrow enough one would make a plain 95 % interval too short (it stops when the noise
/// happens to be small); so each look uses 1 − 0.05 / L with L = trials − min_trials + 1 looks. By the
/// union bound the interval reported at whatever look the run stops covers with probability ≥ 95 %.
[[nodiscard]] double sequential_confidence(const Design& design);
/// Returns the design's stopping rule (target_ci_pt, min_trials, trials).
[[nodiscard]] SequentialRule sequential_rule_of(const Design& design);

/// A design that validate() accepted, with the warnings it gave. Only validate() makes one, and the
/// runner takes nothing else, so a design is checked once, where it is made.
class ValidatedDesign {
 public:
  [[nodiscard]] const Design& design() const noexcept { return design_; }
  /// Validation warnings (e.g. k = 2 gives a very wide CI); the runner records them in its result.
  [[nodiscard]] const std::vector<std::string>& warnings() const noexcept { return warnings_; }
  /// The GGUF type of every precision, baseline first, as Design::precisions() lists them; empty when
  /// the precisions are labels (Design::precision_labels).
  [[nodiscard]] const std::vector<GgufType>& precision_types() const noexcept { return types_; }

 private:
  friend Result<ValidatedDesign> validate(Design design);
  ValidatedDesign(Design design, std::vector<std::string> warnings, std::vector<GgufType> types)
      : design_(std::move(design)), warnings_(std::move(warnings)), types_(std::move(types)) {}

  Design design_;
  std::vector<std::string> warnings_;
  std::vector<GgufType> types_;
};

/// Checks a design: every precision a GGUF type of the precision table, the baseline a float type (or,
/// with precision_labels, every precision a label of 1–32 letters, digits and _),
/// no precision twice, counts and windows in range. Precision names are put in the table's spelling
/// ("q8_0" → "Q8_0"). Returns the validated design with its warnings, or an invalid_argument error
/// naming the field (`trials`, `candidates` …) and the value.
[[nodiscard]] Result<ValidatedDesign> validate(Design design);

}  // namespace ecocompute::protocol
