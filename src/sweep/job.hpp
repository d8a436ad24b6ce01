// Job: one experiment of one model (baseline + the plan's precisions at one batch list), the
// expansion of a plan into its jobs in a stable order (the index Slurm arrays use), and the
// experiment options each job runs with.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "experiment/experiment.hpp"
#include "sweep/plan.hpp"

namespace ecocompute::sweep {

struct Job {
  std::size_t index = 0;     ///< position in expand_jobs (the Slurm array task id)
  std::string id;            ///< "003-llama3-8b-b1-8": index, model, batch list; a folder name
  PlanModel model;
  std::vector<int> batches;
};

/// One job per (model, batch list), models outermost, in plan order.
std::vector<Job> expand_jobs(const SweepPlan& plan);

/// Where a job lives in a sweep folder.
struct JobPaths {
  std::filesystem::path folder;  ///< <sweep>/jobs/<id>: the experiment's reports, plus sweep-measure.log
  std::filesystem::path model;   ///< the GGUF measured (the plan's file, or <sweep>/models/<id>.gguf for synth)
};
JobPaths job_paths(const std::filesystem::path& sweep_dir, const Job& job);

/// The experiment of `job`: the plan's design with the job's model, batch list and folder, the sweep's
/// quantization cache (`cache_dir`; "" = the default folder) and `gpu`, the UUID the engine loads on
/// and the meter reads ("" on a CPU slot: measure's default, the first visible GPU or none).
experiment::ExperimentOptions job_experiment(const SweepPlan& plan, const Job& job, const JobPaths& paths,
                                             const std::filesystem::path& cache_dir, const std::string& gpu);

/// The step of a job a child process runs.
enum class JobStep { synth, measure };
std::string_view to_string(JobStep step) noexcept;

/// What a child needs besides the sweep folder's plan copy: which job, which step, where its slot is.
struct JobStepRequest {
  std::filesystem::path sweep_dir;
  std::string job_id;
  JobStep step = JobStep::measure;
  std::filesystem::path cache_dir;  ///< "" = the default folder
  std::string gpu;                  ///< "" on a CPU slot
};

/// The arguments after the binary of the child that runs `request` (`ecocompute sweep job …`, an
/// internal subcommand): the job is named, never spelled as measure flags.
std::vector<std::string> job_step_arguments(const JobStepRequest& request);

}  // namespace ecocompute::sweep
