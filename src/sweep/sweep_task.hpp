// `sweep task`: one job of a plan, picked by index, run where the batch system put it (a Slurm array
// task): the same job folder, journal and done rule as `sweep run`, and optionally each report POSTed
// to an `ecocompute serve` store.
#pragma once

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "sweep/job_runner.hpp"
#include "sweep/plan.hpp"
#include "sweep/report_upload.hpp"

namespace ecocompute::sweep {

struct TaskOptions {
  SweepPlan plan;
  std::filesystem::path dir;
  std::size_t index = 0;
  std::filesystem::path binary;
  std::filesystem::path cache_dir;  ///< "" = <dir>/cache
  std::string post_url;             ///< "" = no upload
  std::string post_key;             ///< the write key sent with each upload; "" = none
};

struct TaskOutcome {
  std::string job;
  bool already_done = false;  ///< a done record was there: nothing ran
  JobOutcome outcome;
  std::vector<std::pair<std::string, UploadAnswer>> uploads;  ///< (report file, answer)
  std::vector<std::string> upload_errors;                     ///< reports that could not be offered
};

/// Runs job `index` of the plan unless the journal says it is done. The slot is named after the
/// Slurm array task when $SLURM_ARRAY_JOB_ID is set; the child keeps the CUDA_VISIBLE_DEVICES the
/// batch system gave it.
Result<TaskOutcome> run_task(const TaskOptions& options, const std::atomic<bool>* stop);

}  // namespace ecocompute::sweep
