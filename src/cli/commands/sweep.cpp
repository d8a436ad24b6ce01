// `ecocompute sweep run|status|collect|slurm|task`: many measurements from one plan (docs/sweep.md), and
// the internal `sweep job` each job's steps run in.
#include <signal.h>

#include <atomic>
#include <iostream>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "cli/exit_code.hpp"
#include "cli/interrupt_handler.hpp"
#include "cli/sweep_store_import.hpp"
#include "report/verdict_table.hpp"
#include "sweep/child_process.hpp"
#include "sweep/collect.hpp"
#include "sweep/coordinator.hpp"
#include "sweep/job_step.hpp"
#include "sweep/slurm_script.hpp"
#include "sweep/sweep_status.hpp"
#include "sweep/sweep_task.hpp"
#include "util/file_io.hpp"
#include "util/log.hpp"

namespace ecocompute::cli {
namespace {

namespace fs = std::filesystem;

std::atomic<bool> stop_requested{false};

// Ctrl-C reaches the jobs' children through the terminal's process group; the coordinator only stops
// handing out jobs (a finished job stays done, the interrupted one is redone on resume).
extern "C" void on_stop(int) { stop_requested.store(true); }

class StopHandler {
 public:
  StopHandler() {
    struct sigaction action {};
    action.sa_handler = on_stop;
    sigemptyset(&action.sa_mask);
    sigaction(SIGINT, &action, &previous_int_);
    sigaction(SIGTERM, &action, &previous_term_);
  }
  ~StopHandler() {
    sigaction(SIGINT, &previous_int_, nullptr);
    sigaction(SIGTERM, &previous_term_, nullptr);
  }
  StopHandler(const StopHandler&) = delete;
  StopHandler& operator=(const StopHandler&) = delete;

 private:
  struct sigaction previous_int_ {};
  struct sigaction previous_term_ {};
};

struct SweepFlags {
  std::string plan;
  std::string dir;
  int slots = 0;
  std::string cache_dir;
  bool json = false;
  std::string collect_to;
  std::string store;
  std::size_t index = 0;
  std::string post_url;
  std::string post_key_file;
  sweep::SlurmOptions slurm;
  std::string binary;
  std::string job;   ///< `sweep job`: the job id
  std::string step;  ///< `sweep job`: synth or measure
  std::string gpu;   ///< `sweep job`: the slot's GPU UUID
};

int run_run(const SweepFlags& f) {
  auto plan = sweep::read_plan(f.plan);
  if (!plan) return report_error(plan.error());
  auto slots = sweep::plan_slots(*plan, f.slots);
  if (!slots) return report_error(slots.error());
  sweep::SweepRunOptions options{*plan, f.dir, *slots, sweep::own_binary(), f.cache_dir};
  stop_requested.store(false);
  Result<sweep::SweepRunSummary> summary = [&] {
    const StopHandler handler;
    return sweep::run_sweep(options, &stop_requested);
  }();
  if (!summary) return report_error(summary.error());
  std::cerr << fmt::format("sweep {}: {} job(s): {} done before, {} done now, {} failed{}\n", f.dir, summary->jobs,
                           summary->already_done, summary->done, summary->failed,
                           summary->stopped ? ", stopped before the rest" : "");
  if (summary->stopped || stop_requested.load()) return exit_interrupted;
  return summary->failed > 0 ? exit_failed_trials : exit_ok;
}

int run_status(const SweepFlags& f) {
  auto status = sweep::read_status(f.dir);
  if (!status) return report_error(status.error());
  std::cout << (f.json ? sweep::to_json(*status).dump(2) + "\n" : sweep::status_text(*status));
  return exit_ok;
}

int run_collect(const SweepFlags& f) {
  if (f.collect_to.empty() == f.store.empty()) {
    return report_error(Error{ErrorCode::invalid_argument, "sweep collect: give exactly one of --to FOLDER and --store"});
  }
  if (!f.collect_to.empty()) {
    auto count = sweep::collect_to_folder(f.dir, f.collect_to);
    if (!count) return report_error(count.error());
    std::cout << fmt::format("{} report file(s) of finished jobs copied into {}\n", *count, f.collect_to);
    return exit_ok;
  }
  auto collected = import_sweep_reports(f.dir, f.store);
  if (!collected) return report_error(collected.error());
  if (f.json) {
    std::cout << to_json(*collected).dump(2) << "\n";
  } else {
    std::cout << fmt::format("{} report(s) imported into {} ({} row(s) added), {} refused\n", collected->imported,
                             f.store, collected->rows_added, collected->refused.size());
    for (const std::string& why : collected->refused) std::cout << "  refused: " << why << "\n";
  }
  return exit_ok;
}

int run_slurm(SweepFlags& f) {
  auto plan = sweep::read_plan(f.plan);
  if (!plan) return report_error(plan.error());
  if (auto recorded = sweep::record_plan(*plan, f.dir); !recorded) return report_error(recorded.error());
  std::error_code ec;
  fs::create_directories(fs::path(f.dir) / "slurm", ec);
  f.slurm.plan = f.plan;
  f.slurm.dir = f.dir;
  f.slurm.binary = f.binary.empty() ? sweep::own_binary() : fs::path(f.binary);
  f.slurm.post_url = f.post_url;
  f.slurm.post_key_file = f.post_key_file;
  const std::size_t jobs = sweep::expand_jobs(*plan).size();
  auto script = sweep::slurm_script(*plan, jobs, f.slurm);
  if (!script) return report_error(script.error());
  const fs::path path = fs::path(f.dir) / "sweep.sbatch";
  if (auto written = write_file_atomic(path, *script); !written) return report_error(written.error());
  fs::permissions(path, fs::perms::owner_exec | fs::perms::group_exec, fs::perm_options::add, ec);
  std::cout << fmt::format("{} array task(s) in {}; submit with: sbatch {}\n", jobs, path.string(), path.string());
  return exit_ok;
}

int run_task(const SweepFlags& f) {
  auto plan = sweep::read_plan(f.plan);
  if (!plan) return report_error(plan.error());
  sweep::TaskOptions options{*plan, f.dir, f.index, sweep::own_binary(), f.cache_dir, f.post_url, ""};
  if (!f.post_key_file.empty()) {
    auto key = sweep::read_write_key(f.post_key_file);
    if (!key) return report_error(key.error());
    options.post_key = *key;
  }
  stop_requested.store(false);
  Result<sweep::TaskOutcome> task = [&] {
    const StopHandler handler;
    return sweep::run_task(options, &stop_requested);
  }();
  if (!task) return report_error(task.error());
  if (task->already_done) {
    std::cerr << fmt::format("job {} was already done\n", task->job);
  } else if (!task->outcome.done) {
    std::cerr << fmt::format("ecocompute: error: job {} failed: {}\n", task->job, task->outcome.reason);
    return stop_requested.load() ? exit_interrupted : exit_failed_trials;
  } else {
    std::cerr << fmt::format("job {} done: {}\n", task->job, (fs::path(f.dir) / "jobs" / task->job).string());
  }
  for (const auto& [name, answer] : task->uploads) {
    std::cerr << fmt::format("  {} → {}: HTTP {} ({})\n", name, f.post_url, answer.http_status, answer.message);
  }
  for (const std::string& error : task->upload_errors) log::warn("upload failed: {}", error);
  return task->upload_errors.empty() ? exit_ok : exit_environment;
}

// `sweep job`: one step of one job, in the child `sweep run` or `sweep task` starts for it. The job
// comes from the folder's plan copy; the measure step stops on Ctrl-C as `measure` does, and exits as
// `measure` does (0, 4 some trials failed, 130 interrupted), which is what the parent reads.
int run_job_step(const SweepFlags& f) {
  const sweep::JobStepRequest request{f.dir, f.job, f.step == "synth" ? sweep::JobStep::synth : sweep::JobStep::measure,
                                      f.cache_dir, f.gpu};
  auto job = sweep::find_folder_job(request.sweep_dir, request.job_id);
  if (!job) return report_error(job.error());
  if (request.step == sweep::JobStep::synth) {
    auto written = sweep::synthesize_job_model(*job);
    return written ? exit_ok : report_error(written.error());
  }
  // Held until the step returns (see measure): the parent reads 130, not a death by the signal.
  const InterruptHandler handler;
  Result<experiment::ExperimentOutcome> outcome = sweep::measure_job(*job, request, &InterruptHandler::interrupted());
  const bool interrupted = InterruptHandler::interrupted().load();
  if (!outcome) {
    const int code = report_error(outcome.error());
    return interrupted ? exit_interrupted : code;
  }
  std::cout << report::format_verdict_table(outcome->written_reports());
  if (outcome->run.cancelled || InterruptHandler::interrupted().load()) return exit_interrupted;
  if (const std::size_t failures = outcome->failures(); failures > 0) {
    log::warn("{} failure(s): see run.json for each reason", failures);
    return exit_failed_trials;
  }
  return exit_ok;
}

}  // namespace

Command make_sweep_command(CLI::App& root) {
  auto f = std::make_shared<SweepFlags>();
  CLI::App* app = root.add_subcommand("sweep", "Many measurements from one plan: a worker per GPU, resumable; Slurm arrays");
  app->require_subcommand(1);

  CLI::App* run = app->add_subcommand("run", "Run (or resume) every job of a plan, one worker per GPU or CPU slot");
  run->add_option("plan", f->plan, "Plan file (JSON; docs/sweep.md)")->required()->check(CLI::ExistingFile);
  run->add_option("-o,--out", f->dir, "Sweep folder: jobs, journal, plan copy (the same folder resumes)")->required();
  run->add_option("--slots", f->slots, "Run N CPU slots instead of the plan's GPUs (no GPU, CI)")->check(CLI::Range(1, 256));
  run->add_option("--cache-dir", f->cache_dir, "Quantization cache shared by the jobs (default: <out>/cache)");

  CLI::App* status = app->add_subcommand("status", "Progress of a sweep folder: per slot done / running / failed, pending");
  status->add_option("dir", f->dir, "Sweep folder")->required();
  status->add_flag("--json", f->json, "Print JSON");

  CLI::App* collect = app->add_subcommand("collect", "Every finished report of a sweep into one folder or a dataset store");
  collect->add_option("dir", f->dir, "Sweep folder")->required();
  collect->add_option("--to", f->collect_to, "Folder to copy the reports into (<job>.<file>)");
  collect->add_option("--store", f->store, "Dataset store to import the energy reports into (SQLite file or postgresql:// URL)");
  collect->add_flag("--json", f->json, "Print JSON (with --store)");

  CLI::App* slurm = app->add_subcommand("slurm", "Write an sbatch script: a Slurm job array with one task per job");
  slurm->add_option("plan", f->plan, "Plan file (JSON; docs/sweep.md)")->required()->check(CLI::ExistingFile);
  slurm->add_option("-o,--out", f->dir, "Sweep folder on storage every node sees")->required();
  slurm->add_option("--partition", f->slurm.partition, "Slurm partition (default: the cluster's)");
  slurm->add_option("--gres", f->slurm.gres, "Generic resources per task (\"\" for none)")->capture_default_str();
  slurm->add_option("--time", f->slurm.time_limit, "Time limit per task (HH:MM:SS)");
  slurm->add_option("--cpus-per-task", f->slurm.cpus_per_task, "CPUs per task")->check(CLI::Range(1, 4096));
  slurm->add_option("--max-parallel", f->slurm.max_parallel, "Array tasks running at once at most")->check(CLI::Range(1, 100000));
  slurm->add_option("--post", f->post_url, "Also POST each report to this `ecocompute serve` (http://host:port)");
  slurm->add_option("--post-key-file", f->post_key_file,
                    "File holding the write key the store asks for (`ecocompute keys add`); each task reads it");
  slurm->add_option("--binary", f->binary, "ecocompute as the compute nodes see it (default: this binary)");

  CLI::App* task = app->add_subcommand("task", "Run one job of a plan by index (a Slurm array task)");
  task->add_option("plan", f->plan, "Plan file (JSON; docs/sweep.md)")->required()->check(CLI::ExistingFile);
  task->add_option("-o,--out", f->dir, "Sweep folder")->required();
  task->add_option("--index", f->index, "Job index (0-based; $SLURM_ARRAY_TASK_ID)")->required();
  task->add_option("--post", f->post_url, "POST each report to this `ecocompute serve` (http://host:port)");
  task->add_option("--post-key-file", f->post_key_file,
                   "File holding the write key the store asks for (`ecocompute keys add`); sent as a bearer token");
  task->add_option("--cache-dir", f->cache_dir, "Quantization cache (default: <out>/cache)");

  // Internal: what `sweep run` and `sweep task` start for each step of a job (hidden from --help).
  CLI::App* job = app->add_subcommand("job", "Run one step of one job of a sweep folder (started by the sweep itself)");
  job->group("");
  job->add_option("dir", f->dir, "Sweep folder (its plan.json names the job)")->required();
  job->add_option("--job", f->job, "Job id")->required();
  job->add_option("--step", f->step, "synth or measure")->required()->check(CLI::IsMember({"synth", "measure"}));
  job->add_option("--cache-dir", f->cache_dir, "Quantization cache (default: the user's)");
  job->add_option("--gpu", f->gpu, "The slot's GPU UUID (default: the first visible, or none)");

  return {app, [f, run, status, collect, slurm, job]() -> int {
            if (job->parsed()) return run_job_step(*f);
            if (run->parsed()) return run_run(*f);
            if (status->parsed()) return run_status(*f);
            if (collect->parsed()) return run_collect(*f);
            if (slurm->parsed()) return run_slurm(*f);
            return run_task(*f);
          }};
}

}  // namespace ecocompute::cli
