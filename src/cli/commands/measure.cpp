// `ecocompute measure`: energy per token and quality of precisions against a same-run baseline.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <iostream>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "cli/exit_code.hpp"
#include "cli/interrupt_handler.hpp"
#include "report/bench_record.hpp"
#include "experiment/experiment.hpp"
#include "report/printer.hpp"
#include "report/verdict_table.hpp"
#include "util/defaults.hpp"
#include "util/log.hpp"
#include "util/number_list.hpp"
#include "util/text_list.hpp"

namespace ecocompute::cli {
namespace {

std::string join_numbers(const std::vector<int>& items) {
  std::string out;
  for (int item : items) out += (out.empty() ? "" : ",") + std::to_string(item);
  return out;
}

// A comma-separated list with no empty item ("Q8_0,,Q4_0" and ",," are mistakes, not two names).
const CLI::Validator kCommaList(
    [](std::string& text) -> std::string {
      for (const std::string& item : split_commas(text)) {
        if (item.empty()) return "'" + text + "' has an empty item (comma-separated, no spaces)";
      }
      return {};
    },
    "LIST");

// CLI11's Range lets "nan" through (every comparison with NaN is false): numbers must be finite.
const CLI::Validator kFinite(
    [](std::string& text) -> std::string {
      char* end = nullptr;
      const double value = std::strtod(text.c_str(), &end);
      if (end == text.c_str() || *end != '\0' || !std::isfinite(value)) return "'" + text + "' is not a finite number";
      return {};
    },
    "FINITE");

// A seed is a decimal number of 0 … 2^64 − 1; "-1" would otherwise wrap around silently.
const CLI::Validator kSeed(
    [](std::string& text) -> std::string {
      std::uint64_t value = 0;
      const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) {
        return "'" + text + "' is not a whole number from 0 to 18446744073709551615";
      }
      return {};
    },
    "SEED");

// The flags' defaults are the Design's (util/defaults.hpp), read through a default Design.
struct MeasureFlags {
  experiment::ExperimentOptions options;
  std::string precisions_text = join_commas(options.design.candidates);
  std::string prompt_lengths_text;
  std::string batches_text = join_numbers(options.design.batches);
  double min_window_s = options.design.min_window.value;
  double min_prefill_window_s = options.design.min_prefill_window.value;
  double idle_window_s = options.design.idle_window.value;
  double cool_down_s = options.design.cool_down.pause.value;
  double max_temperature_c = 0.0;
  double target_ci_pt = 0.0;
  std::string order{protocol::to_string(options.design.order)};
  std::string edges = options.design.correct_edges ? "corrected" : "counter";
  std::string trial_warmup{protocol::to_string(options.design.trial_warmup)};
  std::string prefill_windows = options.design.prefill_at_every_batch ? "every-batch" : "first-batch";
  std::string token_choice{engine::to_string(options.token_choice)};
  std::string seed;
  std::string output;
  bool no_quality = false;
  bool no_progress = false;
  std::string engine = "llama.cpp";
  std::string baseline_command;
  std::vector<std::string> candidate_commands;
  double command_timeout_s = 600.0;
  bool command_cpu = false;
  std::string gpus_text;
  std::string split_mode;
  // Options whose presence run_measure checks against the engine chosen.
  CLI::Option* model_option = nullptr;
  CLI::Option* baseline_option = nullptr;
  CLI::Option* precisions_option = nullptr;
};

// "LABEL=COMMAND" as the command engine's spec; the label is checked with the design.
Result<engine::CommandSpec> parse_command_spec(const std::string& flag, const std::string& text, const MeasureFlags& flags) {
  const std::size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size()) {
    return unexpected(ErrorCode::invalid_argument,
                      flag + ": '" + text + "' is not LABEL=COMMAND (e.g. 'FP16=python3 prog.py --precision fp16')");
  }
  engine::CommandSpec spec;
  spec.label = text.substr(0, equals);
  spec.command = text.substr(equals + 1);
  spec.start_timeout = Seconds{flags.command_timeout_s};
  spec.reply_timeout = Seconds{flags.command_timeout_s};
  return spec;
}

// The command engine's part of the options: one program per label, labels as the design's precisions.
Result<void> set_up_commands(MeasureFlags& flags) {
  experiment::ExperimentOptions& options = flags.options;
  protocol::Design& design = options.design;
  if (flags.model_option->count() > 0 || flags.baseline_option->count() > 0 || flags.precisions_option->count() > 0) {
    return unexpected(ErrorCode::invalid_argument,
                      "--engine command: the programs are given by --baseline-command and --candidate-command, not "
                      "--model, --baseline or --precisions");
  }
  if (flags.baseline_command.empty()) {
    return unexpected(ErrorCode::invalid_argument, "--engine command needs --baseline-command 'LABEL=COMMAND'");
  }
  if (design.batches != std::vector<int>{1}) {
    return unexpected(ErrorCode::invalid_argument, "--engine command: --batch must be 1 (a program decodes one sequence)");
  }
  auto baseline = parse_command_spec("--baseline-command", flags.baseline_command, flags);
  if (!baseline) return baseline.error();
  options.commands.push_back(std::move(*baseline));
  for (const std::string& text : flags.candidate_commands) {
    auto candidate = parse_command_spec("--candidate-command", text, flags);
    if (!candidate) return candidate.error();
    options.commands.push_back(std::move(*candidate));
  }
  design.precision_labels = true;
  design.baseline = options.commands.front().label;
  design.candidates.clear();
  for (std::size_t i = 1; i < options.commands.size(); ++i) design.candidates.push_back(options.commands[i].label);
  options.quality = false;  // no logits to score
  options.commands_on_gpu = !flags.command_cpu;
  return {};
}

int run_measure(MeasureFlags& flags) {
  experiment::ExperimentOptions& options = flags.options;
  protocol::Design& design = options.design;
  design.candidates = split_commas(flags.precisions_text);
  // `-p ''` (an emptied variable, say) names no precision: refuse it rather than run the baseline alone.
  if (design.candidates.empty() && flags.precisions_option != nullptr && flags.precisions_option->count() > 0) {
    return report_error(Error{ErrorCode::invalid_argument,
                              "--precisions: no precision given (name at least one, e.g. -p Q8_0,Q4_K_M)"});
  }
  auto lengths = parse_number_list(flags.prompt_lengths_text,
                                   {.what = "--prompt-lengths", .noun = "token count", .max = 1 << 20, .allow_empty = true});
  if (!lengths) return report_error(lengths.error());
  design.prompt.lengths_tokens = *lengths;
  auto batches = parse_number_list(flags.batches_text, {.what = "--batch", .noun = "batch size",
                                                        .max = defaults::max_measure_batch, .unique = true});
  if (!batches) return report_error(batches.error());
  design.batches.assign(batches->begin(), batches->end());
  design.min_window = Seconds{flags.min_window_s};
  design.correct_edges = flags.edges == "corrected";
  if (flags.target_ci_pt > 0.0) design.target_ci_pt = flags.target_ci_pt;
  design.min_prefill_window = Seconds{flags.min_prefill_window_s};
  design.idle_window = Seconds{flags.idle_window_s};
  design.cool_down.pause = Seconds{flags.cool_down_s};
  if (flags.max_temperature_c > 0.0) design.cool_down.max_temperature_c = flags.max_temperature_c;
  auto order = protocol::parse_schedule_order(flags.order);
  if (!order) return report_error(order.error());
  design.order = *order;
  auto warmup = protocol::parse_trial_warmup(flags.trial_warmup);
  if (!warmup) return report_error(warmup.error());
  design.trial_warmup = *warmup;
  design.prefill_at_every_batch = flags.prefill_windows == "every-batch";
  auto choice = engine::parse_token_choice(flags.token_choice);
  if (!choice) return report_error(choice.error());
  options.token_choice = *choice;
  if (!flags.seed.empty()) design.seed = std::strtoull(flags.seed.c_str(), nullptr, 10);  // checked by kSeed
  options.quality = !flags.no_quality;
  options.progress_bar = !flags.no_progress;
  options.gpus = split_commas(flags.gpus_text);
  if (!flags.split_mode.empty()) {
    if (options.gpus.size() < 2) {
      return report_error(Error{ErrorCode::invalid_argument, "--split-mode needs --gpus with two or more GPUs"});
    }
    auto mode = engine::parse_split_mode(flags.split_mode);
    if (!mode) return report_error(Error{ErrorCode::invalid_argument, "--split-mode", mode.error()});
    options.split_mode = *mode;
  }

  if (flags.engine == "command") {
    if (auto commands = set_up_commands(flags); !commands) return report_error(commands.error());
  } else if (!flags.baseline_command.empty() || !flags.candidate_commands.empty()) {
    return report_error(Error{ErrorCode::invalid_argument, "--baseline-command and --candidate-command need --engine command"});
  } else if (flags.model_option->count() == 0) {
    return report_error(Error{ErrorCode::invalid_argument, "--model is required (the source GGUF)"});
  }

  std::optional<report::OutputFormat> format;
  if (!flags.output.empty()) {
    auto parsed = report::parse_output_format(flags.output);
    if (!parsed) return report_error(parsed.error());
    format = *parsed;
  }

  if (flags.engine != "command") {
    if (auto missing = report_missing_model(design.model)) return *missing;
  }
  // Held until the command returns, so a stop request delivered again after the run (as `timeout`
  // does) is absorbed, not the default action that would end the process by the signal.
  const InterruptHandler handler;
  Result<experiment::ExperimentOutcome> outcome =
      experiment::run_experiment(options, &InterruptHandler::interrupted());
  const bool interrupted = InterruptHandler::interrupted().load();
  if (!outcome) {
    // Interrupted before anything was measured (e.g. while a program was starting): that is the stop
    // asked for, not a broken environment.
    if (interrupted) {
      (void)report_error(outcome.error());
      return exit_interrupted;
    }
    return report_error(outcome.error());
  }

  // The verdict table is for people: stdout by default, stderr when stdout carries a machine format.
  const std::vector<report::EnergyReport> reports = outcome->written_reports();
  const std::string table = report::format_verdict_table(reports);
  if (format) {
    std::cerr << table;
    auto printer = report::make_printer(*format, std::cout);
    report::print_bench_records(*printer, reports);
  } else {
    std::cout << table;
  }
  std::cerr << "reports: " << options.out_dir.string() << " (run.json and one energy-<precision>.json each)\n";

  if (outcome->run.cancelled || InterruptHandler::interrupted().load()) return exit_interrupted;
  const std::size_t failures = outcome->failures();
  if (failures > 0) {
    log::warn("{} failure(s): see the trial rows and run.json for each reason", failures);
    return exit_failed_trials;
  }
  return exit_ok;
}

}  // namespace

Command make_measure_command(CLI::App& root) {
  CLI::App* app = root.add_subcommand(
      "measure", "Measure energy per token and quality of precisions against a baseline measured in the same run");
  auto flags = std::make_shared<MeasureFlags>();
  experiment::ExperimentOptions& o = flags->options;
  protocol::Design& d = o.design;
  flags->model_option =
      app->add_option("-m,--model", d.model, "Source GGUF (F32/F16/BF16; quantized in-process into the cache); "
                                             "required with --engine llama.cpp");
  flags->baseline_option = app->add_option("--baseline", d.baseline, "Baseline precision measured in the same run")
                               ->capture_default_str()
                               ->check(CLI::IsMember({"F16", "BF16", "F32"}, CLI::ignore_case));
  // One argument, split here: a list option would let `-p ,,` swallow the next flag.
  flags->precisions_option =
      app->add_option("-p,--precisions", flags->precisions_text, "Candidate GGUF types, comma separated (e.g. Q8_0,Q4_K_M)")
          ->capture_default_str()
          ->check(kCommaList);
  app->add_option("--engine", flags->engine,
                  "What is measured: llama.cpp (in-process, -m) or command (programs speaking docs/command-protocol.md)")
      ->capture_default_str()
      ->check(CLI::IsMember({"llama.cpp", "command"}));
  app->add_option("--baseline-command", flags->baseline_command,
                  "--engine command: the baseline's program as LABEL=COMMAND (run by /bin/sh -c), e.g. "
                  "'FP16=python3 prog.py --precision fp16'");
  app->add_option("--candidate-command", flags->candidate_commands,
                  "--engine command: a candidate's program as LABEL=COMMAND; repeat for more candidates")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->allow_extra_args(false);
  app->add_option("--command-timeout", flags->command_timeout_s,
                  "--engine command: seconds a program may take to declare itself and to answer each request")
      ->capture_default_str()
      ->check(kFinite & CLI::Range(0.1, 86400.0));
  app->add_flag("--command-cpu", flags->command_cpu,
                "--engine command: the programs work on the CPU, so the meter reads RAPL, not a GPU");
  app->add_option("-k,--trials", d.trials,
                  "Trials per precision, interleaved with the baseline (with --target-ci: the most)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app->add_option("--warmups", d.warmups, "Warm-up iterations per precision after loading")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app->add_option("--tokens", d.tokens_per_iteration, "Tokens generated per iteration (per sequence)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  app->add_option("--iterations", d.iterations,
                  "Iterations per decode window (a minimum; extended to --min-window, per batch level)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  app->add_option("--trial-warmup", flags->trial_warmup,
                  "Warm-up before each trial: every (one iteration before every trial) or change (an iteration where "
                  "the trial before ran another precision; a prefill and --level-warmup-tokens steps where only the "
                  "batch changed; none where it ran the same condition)")
      ->capture_default_str()
      ->check(CLI::IsMember({"every", "change"}));
  app->add_option("--prefill-windows", flags->prefill_windows,
                  "Prefill windows at every batch level (every-batch) or only at the first --batch level "
                  "(first-batch: the prompt is computed once whatever the batch)")
      ->capture_default_str()
      ->check(CLI::IsMember({"every-batch", "first-batch"}));
  app->add_option("--level-warmup-tokens", d.level_warmup_tokens,
                  "Decode steps of the warm-up at a batch change (--trial-warmup change)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  app->add_option("--token-choice", flags->token_choice,
                  "Where the greedy choice of the next token runs: device (inside llama.cpp's compute graph; only "
                  "token ids reach the host) or host (each sequence's logits row searched on the CPU, as reports "
                  "before 2026-12-03 did)")
      ->capture_default_str()
      ->check(CLI::IsMember({"device", "host"}));
  app->add_option("--min-window", flags->min_window_s, "Shortest decode window, seconds (counter-edge error)")
      ->capture_default_str()
      ->check(kFinite & CLI::Range(0.0, 3600.0));
  app->add_option("--target-ci", flags->target_ci_pt,
                  "Stop adding blocks once every candidate's paired decode ΔE CI is within ± this many points "
                  "(looks after blocks --min-trials … -k; each CI widened so the reported one keeps ≥ 95 % coverage)")
      ->check(kFinite & CLI::Range(0.01, 100.0));
  app->add_option("--min-trials", d.min_trials, "Blocks before --target-ci may stop the run")
      ->capture_default_str()
      ->check(CLI::Range(2, 1000));
  app->add_option("--edges", flags->edges,
                  "Window edges: counter (plain counter difference; windows ≥ update period / 0.5 %, 20 s on H200) or "
                  "corrected (each edge's staleness added from the power trace; windows as short as --min-window)")
      ->capture_default_str()
      ->check(CLI::IsMember({"counter", "corrected"}));
  app->add_option("--min-prefill-window", flags->min_prefill_window_s, "Shortest prefill window, seconds")
      ->capture_default_str()
      ->check(kFinite & CLI::Range(0.0, 3600.0));
  app->add_option("--prompt", d.prompt.text, "Prompt text")->capture_default_str();
  app->add_option("--prompt-lengths", flags->prompt_lengths_text,
                  "Prompt lengths in tokens, each a condition (comma separated, each 1 … 1048576)")
      ->check(kCommaList);
  app->add_option("--batch", flags->batches_text,
                  fmt::format("Parallel sequences per decode step, each a condition (comma separated, each 1 … {})",
                              defaults::max_measure_batch))
      ->capture_default_str()
      ->check(kCommaList);
  app->add_option("--idle-window", flags->idle_window_s, "Idle window with the models loaded, seconds")
      ->capture_default_str()
      ->check(kFinite & CLI::Range(0.0, 3600.0));
  app->add_option("--cool-down", flags->cool_down_s, "Pause before every trial, seconds")
      ->capture_default_str()
      ->check(kFinite & CLI::Range(0.0, 3600.0));
  app->add_option("--max-temperature", flags->max_temperature_c, "Wait before each trial until the GPU is at or below this (°C)")
      ->check(kFinite & CLI::Range(1.0, 120.0));
  app->add_option("--order", flags->order, "Trial order: alternating (B C1 C2 | C2 C1 B …) or shuffled")
      ->capture_default_str();
  app->add_option("--seed", flags->seed, "Seed of the schedule, 0 … 2^64 − 1 (drawn and recorded when absent)")
      ->check(kSeed);
  app->add_flag("--accept-throttled", d.accept_throttled, "Count trials the GPU throttled in (flagged) in the statistics");
  app->add_option("--gpu", o.gpu, "GPU to use and read: UUID (GPU-…), PCI bus id, or cuda:N (default: first visible)");
  auto* gpus = app->add_option("--gpus", flags->gpus_text,
                               "Split the model over these GPUs and read every one: UUIDs (GPU-…), comma-separated")
                   ->check(kCommaList);
  gpus->excludes(app->get_option("--gpu"));
  app->add_option("--split-mode", flags->split_mode,
                  "With --gpus: layer (whole layers per GPU, the default), row (rows of each matrix) or tensor "
                  "(tensor parallelism)")
      ->check(CLI::IsMember({"layer", "row", "tensor"}));
  app->add_flag("--allow-shared", o.allow_shared, "Measure even when other processes use the GPU");
  app->add_flag("--require-energy", o.require_energy, "Fail (exit 3) rather than run without an energy source");
  app->add_option("--n-gpu-layers", o.n_gpu_layers, "Layers on the GPU (-1: all)")->capture_default_str();
  app->add_option("--ctx", o.n_ctx, "Context size (0: derived from the prompt, tokens and quality windows)")
      ->capture_default_str();
  app->add_option("-t,--threads", o.n_threads, "CPU threads (0: every core but one, and no more than the load average leaves free)")->capture_default_str()->check(CLI::Range(0, 1024));
  app->add_option("--cache-dir", o.cache_dir, "Quantization cache folder (default: $XDG_CACHE_HOME/ecocompute)");
  app->add_option("-o,--out", o.out_dir, "Folder for energy-<precision>.json and run.json")->capture_default_str();
  app->add_flag("--no-quality", flags->no_quality, "Skip the quality probe");
  app->add_option("--quality-text", o.quality_text, "Text for the quality probe (default: the shipped held-out corpus)")
      ->check(CLI::ExistingFile);
  app->add_option("--quality-ctx", o.quality_policy.seq_len, "Tokens per quality window")
      ->capture_default_str()
      ->check(CLI::Range(16, 1 << 16));
  app->add_option("--quality-stride", o.quality_policy.stride, "Scored tokens per quality window after the first")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 16));
  app->add_option("--quality-max-tokens", o.quality_policy.max_tokens, "Corpus tokens scored at most (0: all)")
      ->capture_default_str()
      ->check(CLI::Range(static_cast<std::int64_t>(0), static_cast<std::int64_t>(1) << 40));
  app->add_option("--output", flags->output, "Also print llama-bench-style rows on stdout: md, csv, json, jsonl or sql");
  app->add_flag("--no-progress", flags->no_progress, "No progress bar");
  return {app, [flags] { return run_measure(*flags); }};
}

}  // namespace ecocompute::cli
