// `sweep slurm`: an sbatch script for a Slurm job array with one array task per job of the plan,
// each task running `ecocompute sweep task PLAN --index $SLURM_ARRAY_TASK_ID` into a shared folder.
#pragma once

#include <filesystem>
#include <string>

#include "sweep/plan.hpp"

namespace ecocompute::sweep {

struct SlurmOptions {
  std::filesystem::path plan;    ///< the plan file (absolute in the script)
  std::filesystem::path dir;     ///< the sweep folder on shared storage
  std::filesystem::path binary;  ///< ecocompute as the compute nodes see it
  std::string partition;         ///< "" = the cluster's default
  std::string gres = "gpu:1";    ///< "" = no GPU (CPU-only tasks)
  std::string time_limit;        ///< "HH:MM:SS"; "" = the partition's default
  int cpus_per_task = 0;         ///< 0 = the cluster's default
  std::string post_url;          ///< an `ecocompute serve` to POST each report to; "" = none
  std::filesystem::path post_key_file;  ///< the file its write key is in (read by each task); "" = none
  std::size_t max_parallel = 0;  ///< "%N" on the array: at most N tasks at once; 0 = no limit
};

/// Returns the script for `job_count` jobs (job_count ≥ 1). Every path and value is single-quoted for
/// the shell; Slurm's own directives take no quotes, so values with spaces or newlines are refused.
Result<std::string> slurm_script(const SweepPlan& plan, std::size_t job_count, const SlurmOptions& options);

/// Quotes `text` for a POSIX shell: 'it'\''s'.
std::string shell_quote(const std::string& text);

}  // namespace ecocompute::sweep
