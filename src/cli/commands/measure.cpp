// `ecocompute measure`: energy per token and quality of precisions against a same-run baseline.
#include <atomic>
#include <csignal>
#include <iostream>

#include "cli/command.hpp"
#include "cli/exit_code.hpp"
#include "report/bench_record.hpp"
#include "experiment/experiment.hpp"
#include "report/printer.hpp"
#include "report/verdict_table.hpp"
#include "util/log.hpp"

namespace ecocompute::cli {
namespace {

std::atomic<bool> interrupted{false};

extern "C" void on_interrupt(int /*signal*/) { interrupted.store(true); }

// The flags' defaults are the Design's (util/defaults.hpp), read through a default Design.
struct MeasureFlags {
  experiment::ExperimentOptions options;
  std::vector<std::string> precisions{options.design.candidates};
  double min_window_s = options.design.min_window.value;
  double min_prefill_window_s = options.design.min_prefill_window.value;
  double idle_window_s = options.design.idle_window.value;
  double cool_down_s = options.design.cool_down.pause.value;
  double max_temperature_c = 0.0;
  std::string order{protocol::to_string(options.design.order)};
  std::uint64_t seed = 0;
  bool seed_given = false;
  std::string output;
  bool no_quality = false;
  bool no_progress = false;
};

int run_measure(MeasureFlags& flags) {
  experiment::ExperimentOptions& options = flags.options;
  protocol::Design& design = options.design;
  design.candidates = flags.precisions;
  design.min_window = Seconds{flags.min_window_s};
  design.min_prefill_window = Seconds{flags.min_prefill_window_s};
  design.idle_window = Seconds{flags.idle_window_s};
  design.cool_down.pause = Seconds{flags.cool_down_s};
  if (flags.max_temperature_c > 0.0) design.cool_down.max_temperature_c = flags.max_temperature_c;
  auto order = protocol::parse_schedule_order(flags.order);
  if (!order) return report_error(order.error());
  design.order = *order;
  if (flags.seed_given) design.seed = flags.seed;
  options.quality = !flags.no_quality;
  options.progress_bar = !flags.no_progress;

  std::optional<report::OutputFormat> format;
  if (!flags.output.empty()) {
    auto parsed = report::parse_output_format(flags.output);
    if (!parsed) return report_error(parsed.error());
    format = *parsed;
  }

  // Ctrl-C stops between trials; what completed is still written.
  interrupted.store(false);
  auto previous_int = std::signal(SIGINT, on_interrupt);
  auto previous_term = std::signal(SIGTERM, on_interrupt);
  auto outcome = experiment::run_experiment(options, &interrupted);
  std::signal(SIGINT, previous_int);
  std::signal(SIGTERM, previous_term);
  if (!outcome) return report_error(outcome.error());

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

  if (outcome->run.cancelled || interrupted.load()) return exit_interrupted;
  std::size_t failures = outcome->run.count_not_ok();
  for (const experiment::WrittenReport& r : outcome->reports) failures += r.failure.empty() ? 0 : 1;
  if (!outcome->quality_failure.empty()) ++failures;
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
  app->add_option("-m,--model", d.model, "Source GGUF (F32/F16/BF16; quantized in-process into the cache)")
      ->required()
      ->check(CLI::ExistingFile);
  app->add_option("--baseline", d.baseline, "Baseline precision measured in the same run")
      ->capture_default_str()
      ->check(CLI::IsMember({"F16", "BF16", "F32"}, CLI::ignore_case));
  app->add_option("-p,--precisions", flags->precisions, "Candidate GGUF types, comma separated (e.g. Q8_0,Q4_K_M)")
      ->delimiter(',')
      ->capture_default_str();
  app->add_option("-k,--trials", d.trials, "Trials per precision, interleaved with the baseline")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app->add_option("--warmups", d.warmups, "Warm-up iterations per precision after loading")
      ->capture_default_str()
      ->check(CLI::Range(1, 1000));
  app->add_option("--tokens", d.tokens_per_iteration, "Tokens generated per iteration")
      ->capture_default_str()
      ->check(CLI::Range(1, 1 << 20));
  app->add_option("--iterations", d.iterations, "Iterations per decode window (a minimum; extended to --min-window)")
      ->capture_default_str()
      ->check(CLI::Range(1, 100000));
  app->add_option("--min-window", flags->min_window_s, "Shortest decode window, seconds (counter-edge error)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 3600.0));
  app->add_option("--min-prefill-window", flags->min_prefill_window_s, "Shortest prefill window, seconds")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 3600.0));
  app->add_option("--prompt", d.prompt.text, "Prompt text")->capture_default_str();
  app->add_option("--prompt-lengths", d.prompt.lengths_tokens, "Prompt lengths in tokens, each a condition (comma separated)")
      ->delimiter(',')
      ->check(CLI::Range(1, 1 << 20));
  app->add_option("--idle-window", flags->idle_window_s, "Idle window with the models loaded, seconds")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 3600.0));
  app->add_option("--cool-down", flags->cool_down_s, "Pause before every trial, seconds")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 3600.0));
  app->add_option("--max-temperature", flags->max_temperature_c, "Wait before each trial until the GPU is at or below this (°C)")
      ->check(CLI::Range(1.0, 120.0));
  app->add_option("--order", flags->order, "Trial order: alternating (B C1 C2 | C2 C1 B …) or shuffled")
      ->capture_default_str();
  app->add_option_function<std::uint64_t>(
      "--seed", [flags](std::uint64_t s) { flags->seed = s; flags->seed_given = true; },
      "Seed of the schedule (drawn and recorded when absent)");
  app->add_flag("--accept-throttled", d.accept_throttled, "Count trials the GPU throttled in (flagged) in the statistics");
  app->add_option("--gpu", o.gpu, "GPU to use and read: UUID (GPU-…), PCI bus id, or cuda:N (default: first visible)");
  app->add_flag("--allow-shared", o.allow_shared, "Measure even when other processes use the GPU");
  app->add_flag("--require-energy", o.require_energy, "Fail (exit 3) rather than run without an energy source");
  app->add_option("--n-gpu-layers", o.n_gpu_layers, "Layers on the GPU (-1: all)")->capture_default_str();
  app->add_option("--ctx", o.n_ctx, "Context size (0: derived from the prompt, tokens and quality windows)")
      ->capture_default_str();
  app->add_option("-t,--threads", o.n_threads, "CPU threads (0: all)")->capture_default_str()->check(CLI::Range(0, 1024));
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
