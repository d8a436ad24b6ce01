// A job's steps, run in its child process.
#include "sweep/job_step.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "experiment/synthetic_source.hpp"
#include "util/log.hpp"

namespace ecocompute::sweep {

namespace fs = std::filesystem;

Result<FolderJob> find_folder_job(const fs::path& sweep_dir, std::string_view job_id) {
  auto plan = read_plan(sweep_dir / "plan.json");
  if (!plan) return plan.error();
  const std::vector<Job> jobs = expand_jobs(*plan);
  const auto job = std::find_if(jobs.begin(), jobs.end(), [&](const Job& j) { return j.id == job_id; });
  if (job == jobs.end()) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("{}: the plan has no job '{}'", (sweep_dir / "plan.json").string(), job_id));
  }
  FolderJob found{std::move(*plan), *job, {}};
  found.paths = job_paths(fs::absolute(sweep_dir), found.job);
  return found;
}

Result<void> synthesize_job_model(const FolderJob& job) {
  const PlanModel& model = job.job.model;
  if (model.synth_arch.empty()) {
    return unexpected(ErrorCode::invalid_argument, fmt::format("job {} measures a file, it has no model to write", job.job.id));
  }
  return experiment::write_synthetic_source({model.synth_arch, model.synth_type, model.synth_seed}, job.paths.model);
}

Result<experiment::ExperimentOutcome> measure_job(const FolderJob& job, const JobStepRequest& request,
                                                  const std::atomic<bool>* cancel) {
  const experiment::ExperimentOptions options = job_experiment(job.plan, job.job, job.paths, request.cache_dir, request.gpu);
  log::info("job {}: {} at batch {} into {}", job.job.id, options.design.model.string(),
            fmt::join(options.design.batches, ","), options.out_dir.string());
  return experiment::run_experiment(options, cancel);
}

}  // namespace ecocompute::sweep
