// The coordinator of `ecocompute sweep run`: one worker thread per slot (a GPU or a CPU slot), each
// taking the next unfinished job and running its steps in child processes (job_runner.hpp); the sweep
// folder is locked while it runs, and a second run of the same folder resumes where the journal says
// it stopped.
#pragma once

#include <atomic>
#include <filesystem>
#include <vector>

#include "sweep/job_runner.hpp"
#include "sweep/plan.hpp"

namespace ecocompute::sweep {

struct SweepRunOptions {
  SweepPlan plan;
  std::filesystem::path dir;        ///< the sweep folder (created if missing)
  std::vector<Slot> slots;          ///< one worker each
  std::filesystem::path binary;     ///< ecocompute, for the children
  std::filesystem::path cache_dir;  ///< default: <dir>/cache
};

struct SweepRunSummary {
  std::size_t jobs = 0;
  std::size_t already_done = 0;  ///< done before this run (skipped)
  std::size_t done = 0;          ///< done in this run
  std::size_t failed = 0;        ///< failed in this run (redone by the next)
  bool stopped = false;          ///< interrupted before every job ran
};

/// The slots of a plan on this host: the plan's GPUs, every GPU NVML lists for "all"
/// (experiment::list_gpu_uuids), or `cpu_slots` CPU slots when it is > 0. Error{unavailable} when the
/// plan wants GPUs and NVML has none.
Result<std::vector<Slot>> plan_slots(const SweepPlan& plan, int cpu_slots);

/// Creates the sweep folder and records the plan in <dir>/plan.json; a folder started with another
/// plan is refused (conflict), since its job ids would mean other jobs.
Result<void> record_plan(const SweepPlan& plan, const std::filesystem::path& dir);

/// Checks that every model file of the plan exists (synthetic ones are written by their job):
/// Error{unavailable} naming the first one missing, before anything runs.
Result<void> check_model_files(const SweepPlan& plan);

/// Runs every job the journal does not list as done; returns when all ran or `stop` became true.
Result<SweepRunSummary> run_sweep(const SweepRunOptions& options, const std::atomic<bool>* stop);

}  // namespace ecocompute::sweep
