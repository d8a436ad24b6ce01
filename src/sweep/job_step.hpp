// One step of one job, in the child process the sweep starts for it (`ecocompute sweep job`): the job
// is read from the sweep folder's plan copy and run through the experiment library — the synthetic
// model written by experiment's writer, the measurement by experiment::run_experiment, the function
// `ecocompute measure` calls. Nothing is spelled as command-line flags.
#pragma once

#include <atomic>
#include <filesystem>
#include <string_view>

#include "experiment/experiment.hpp"
#include "sweep/job.hpp"
#include "sweep/plan.hpp"
#include "util/result.hpp"

namespace ecocompute::sweep {

/// A job of a sweep folder with its plan and paths.
struct FolderJob {
  SweepPlan plan;
  Job job;
  JobPaths paths;
};

/// Reads `sweep_dir`/plan.json (the copy `sweep run` and `sweep task` record) and finds job `job_id`;
/// an id the plan does not have is an invalid_argument error naming it.
[[nodiscard]] Result<FolderJob> find_folder_job(const std::filesystem::path& sweep_dir, std::string_view job_id);

/// Writes the job's synthetic model to its path (a file there is always whole); an error for a job
/// whose model is a file.
[[nodiscard]] Result<void> synthesize_job_model(const FolderJob& job);

/// Runs the job's experiment into its folder, on `request`'s GPU and cache; `cancel` stops it between
/// decode steps (the finished trials are still written).
[[nodiscard]] Result<experiment::ExperimentOutcome> measure_job(const FolderJob& job, const JobStepRequest& request,
                                                                const std::atomic<bool>* cancel);

}  // namespace ecocompute::sweep
