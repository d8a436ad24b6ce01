// run_experiment: one measurement end to end — validate the design once, prepare each precision's
// file, open the meter, run the protocol on engines owned here, probe quality on the same loaded
// weights, write and validate the reports.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/command_engine.hpp"
#include "engine/split_mode.hpp"
#include "experiment/run_writer.hpp"
#include "protocol/design.hpp"
#include "protocol/run_result.hpp"
#include "quality/quality_result.hpp"
#include "util/defaults.hpp"
#include "util/result.hpp"

namespace ecocompute::experiment {

/// Everything `ecocompute measure` needs, as the user gave it.
struct ExperimentOptions {
  protocol::Design design;                  ///< model, baseline, candidates, trials, windows … (validated here)
  std::string gpu;                          ///< `--gpu` (UUID, PCI bus id, cuda:N); empty: first visible
  /// `--gpus`: two or more GPU UUIDs the model is split over (every one metered); excludes `gpu`.
  std::vector<std::string> gpus;
  engine::SplitMode split_mode = engine::SplitMode::layer;  ///< with `gpus`
  bool allow_shared = false;                ///< measure although other processes use the GPU
  bool require_energy = false;              ///< fail (exit 3) instead of running without an energy source
  int n_gpu_layers = -1;                    ///< -1: every layer on the GPU
  engine::TokenChoice token_choice = engine::TokenChoice::device;  ///< where the greedy choice runs
  std::uint32_t n_ctx = 0;                  ///< 0: enough for the prompt, one iteration and the quality windows
  int n_threads = 0;                        ///< CPU threads (0: hardware concurrency)
  std::filesystem::path cache_dir;          ///< quantization cache (empty: the default folder)
  std::filesystem::path out_dir{defaults::out_dir};  ///< where energy-*.json and run.json go
  bool quality = true;                      ///< run the quality probe (never for synthetic weights)
  std::filesystem::path quality_text;       ///< empty: the shipped held-out corpus
  quality::WindowPolicy quality_policy;
  bool progress_bar = true;                 ///< progress on stderr
  /// The ecocompute binary that checks the model loads (engine::check_model_loads); empty: this process's.
  std::filesystem::path model_check_program;
  /// The command engine: one program per precision, labelled as design.baseline and design.candidates
  /// (which then are labels: design.precision_labels). Empty: the in-process llama.cpp engine.
  std::vector<engine::CommandSpec> commands;
  /// Whether the commands' programs work on the GPU (the meter reads it) or on the CPU (RAPL).
  bool commands_on_gpu = true;
};

/// What a finished experiment produced.
struct ExperimentOutcome {
  protocol::RunResult run;
  std::vector<quality::QualityResult> quality;  ///< empty when the probe did not run
  std::string quality_failure;                  ///< why the probe did not run or failed; empty when it ran
  std::vector<WrittenReport> reports;           ///< one per condition, baseline first
  std::filesystem::path run_summary;            ///< run.json

  /// Returns the reports written, baseline first.
  [[nodiscard]] std::vector<report::EnergyReport> written_reports() const;
  /// Returns the failures the run recorded: failed trials, reports not written, a failed quality probe
  /// (`measure` exits 4 when there is any).
  [[nodiscard]] std::size_t failures() const;
};

/// Runs the experiment. Errors before anything was measured: invalid design or precision
/// (invalid_argument), model file missing or malformed (not_found / invalid_input), no usable meter when
/// `require_energy` or an explicitly named GPU is unusable (unavailable), no precision could be loaded
/// (engine). Once trials have run, failures are recorded in the outcome (failed trials, a failed quality
/// probe, a report that did not validate) and the reports of everything completed are written; a
/// `cancel` flag set mid-run stops between trials and still writes what completed.
[[nodiscard]] Result<ExperimentOutcome> run_experiment(const ExperimentOptions& options,
                                                       const std::atomic<bool>* cancel = nullptr);

}  // namespace ecocompute::experiment
