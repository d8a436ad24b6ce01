// Expanding a plan into jobs, and each job's experiment options.
#include "sweep/job.hpp"

#include <fmt/format.h>

namespace ecocompute::sweep {
namespace {

namespace fs = std::filesystem;

// Folder names keep letters, digits, '.', '-' and '_' only.
std::string folder_safe(std::string text) {
  for (char& c : text) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                      c == '-' || c == '_';
    if (!keep) c = '_';
  }
  return text;
}

std::string join(const std::vector<int>& items, std::string_view separator) {
  std::string out;
  for (int item : items) out += (out.empty() ? "" : std::string(separator)) + std::to_string(item);
  return out;
}

}  // namespace

std::vector<Job> expand_jobs(const SweepPlan& plan) {
  std::vector<Job> jobs;
  for (const PlanModel& model : plan.models) {
    const std::string name = model.synth_arch.empty() ? model.path.stem().string() : model.synth_arch;
    for (const std::vector<int>& batches : plan.batch_lists) {
      Job job;
      job.index = jobs.size();
      job.id = folder_safe(fmt::format("{:03}-{}-b{}", job.index, name, join(batches, "-")));
      job.model = model;
      job.batches = batches;
      jobs.push_back(std::move(job));
    }
  }
  return jobs;
}

JobPaths job_paths(const fs::path& sweep_dir, const Job& job) {
  JobPaths paths;
  paths.folder = sweep_dir / "jobs" / job.id;
  paths.model = job.model.synth_arch.empty() ? job.model.path : sweep_dir / "models" / (job.id + ".gguf");
  return paths;
}

experiment::ExperimentOptions job_experiment(const SweepPlan& plan, const Job& job, const JobPaths& paths,
                                             const fs::path& cache_dir, const std::string& gpu) {
  experiment::ExperimentOptions options = plan.settings;
  options.design.model = paths.model;
  options.design.batches = job.batches;
  options.out_dir = paths.folder;
  options.cache_dir = cache_dir;
  options.gpu = gpu;
  options.progress_bar = false;  // the job's log is a file
  return options;
}

std::string_view to_string(JobStep step) noexcept { return step == JobStep::synth ? "synth" : "measure"; }

std::vector<std::string> job_step_arguments(const JobStepRequest& request) {
  std::vector<std::string> args{"sweep", "job", request.sweep_dir.string(), "--job", request.job_id,
                                "--step", std::string(to_string(request.step))};
  if (!request.cache_dir.empty()) {
    args.emplace_back("--cache-dir");
    args.push_back(request.cache_dir.string());
  }
  if (!request.gpu.empty()) {
    args.emplace_back("--gpu");
    args.push_back(request.gpu);
  }
  return args;
}

}  // namespace ecocompute::sweep
