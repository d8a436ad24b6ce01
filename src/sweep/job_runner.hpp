// Running one job: set aside what an unfinished earlier attempt left, synthesize the model when the
// plan asks for a shape, run `ecocompute measure` as a child, and mark the job done in the journal
// only once run.json and every report it names are complete and synced on disk.
#pragma once

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "sweep/job.hpp"
#include "sweep/journal.hpp"
#include "sweep/plan.hpp"

namespace ecocompute::sweep {

/// Where a job runs: a GPU (its UUID) or a CPU slot.
struct Slot {
  std::string name;      ///< "GPU-…", "cpu-0", "slurm-123_4"
  std::string gpu_uuid;  ///< empty: CPU slot (CUDA_VISIBLE_DEVICES="" for the child)
  bool inherit_devices = false;  ///< a batch system already chose the devices: leave CUDA_VISIBLE_DEVICES as is
};

struct JobRunContext {
  const SweepPlan* plan = nullptr;
  std::filesystem::path sweep_dir;
  std::filesystem::path binary;     ///< the ecocompute binary the children run
  std::filesystem::path cache_dir;  ///< the quantization cache shared by the jobs ("" = measure's default)
  JournalWriter* journal = nullptr;
  const std::atomic<bool>* stop = nullptr;
};

/// The context of a sweep folder `dir`: its cache is `cache_dir`, or `dir`/cache when that is empty.
JobRunContext make_job_run_context(const SweepPlan& plan, const std::filesystem::path& dir, const std::filesystem::path& binary,
                                   const std::filesystem::path& cache_dir, JournalWriter& journal,
                                   const std::atomic<bool>* stop);

struct JobOutcome {
  bool done = false;
  std::vector<std::string> reports;  ///< file names in the job folder, when done
  std::string reason;                ///< why not, when not
};

/// Runs attempt `attempt` of `job` on `slot`; `previous` is the job's state before it (what an
/// existing job folder is set aside as). Errors are the sweep's own (journal or folder not writable);
/// a failing measurement is a JobOutcome with its reason.
Result<JobOutcome> run_job(const JobRunContext& context, const Job& job, const Slot& slot, int attempt,
                           const JobStatus& previous);

/// Checks that `folder` holds a complete measure run: run.json readable and every report it names
/// readable as an energy report. Returns the file names (run.json last), each fsync'ed with the folder.
Result<std::vector<std::string>> complete_reports(const std::filesystem::path& folder);

}  // namespace ecocompute::sweep
