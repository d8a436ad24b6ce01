// Job: one `ecocompute measure` run of one model (baseline + the plan's precisions at one batch
// list), and the expansion of a plan into its jobs in a stable order (the index Slurm arrays use).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

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
  std::filesystem::path folder;  ///< <sweep>/jobs/<id>: measure's --out, plus measure.log
  std::filesystem::path model;   ///< the GGUF measured (the plan's file, or <sweep>/models/<id>.gguf for synth)
};
JobPaths job_paths(const std::filesystem::path& sweep_dir, const Job& job);

/// The arguments after the binary for `ecocompute synth` of a synthetic job's model into `output`.
std::vector<std::string> synth_arguments(const Job& job, const std::filesystem::path& output);

/// The arguments after the binary for `ecocompute measure` of `job` into `paths.folder`; `gpu` is the
/// UUID the child measures ("" on a CPU slot: measure picks its default and meters what it finds).
std::vector<std::string> measure_arguments(const SweepPlan& plan, const Job& job, const JobPaths& paths,
                                           const std::filesystem::path& cache_dir, const std::string& gpu);

}  // namespace ecocompute::sweep
