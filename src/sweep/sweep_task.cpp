// One array task.
#include "sweep/sweep_task.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include "sweep/coordinator.hpp"
#include "util/log.hpp"

namespace ecocompute::sweep {
namespace {

namespace fs = std::filesystem;

Slot task_slot(std::size_t index) {
  const char* array_job = std::getenv("SLURM_ARRAY_JOB_ID");
  const char* array_task = std::getenv("SLURM_ARRAY_TASK_ID");
  Slot slot;
  slot.name = array_job != nullptr && array_task != nullptr ? fmt::format("slurm-{}_{}", array_job, array_task)
                                                            : fmt::format("task-{}", index);
  slot.inherit_devices = true;
  return slot;
}

}  // namespace

Result<TaskOutcome> run_task(const TaskOptions& options, const std::atomic<bool>* stop) {
  const std::vector<Job> jobs = expand_jobs(options.plan);
  if (options.index >= jobs.size()) {
    return unexpected(ErrorCode::invalid_argument,
                      fmt::format("--index: {} is not a job of the plan (it has {} job(s): 0 … {})", options.index,
                                  jobs.size(), jobs.size() - 1));
  }
  const Job& job = jobs[options.index];
  if (auto models = check_model_files(options.plan); !models) return models.error();
  if (auto recorded = record_plan(options.plan, options.dir); !recorded) return recorded.error();
  const fs::path journal_path = options.dir / "journal.jsonl";
  auto journal = JournalWriter::open(journal_path);
  if (!journal) return journal.error();
  auto contents = read_journal(journal_path);
  if (!contents) return contents.error();
  auto states = job_states(contents->records, host_name());
  const JobStatus previous = states.contains(job.id) ? states[job.id] : JobStatus{};

  TaskOutcome task;
  task.job = job.id;
  if (previous.state == JobState::done) {
    task.already_done = true;
    task.outcome.done = true;
    task.outcome.reports = previous.reports;
    log::info("job {} is already done; nothing to run", job.id);
    return task;
  }
  JobRunContext context = make_job_run_context(options.plan, options.dir, options.binary, options.cache_dir, *journal, stop);
  auto outcome = run_job(context, job, task_slot(options.index), previous.attempts + 1, previous);
  if (!outcome) return outcome.error();
  task.outcome = *outcome;
  if (!outcome->done || options.post_url.empty()) return task;

  for (const std::string& name : outcome->reports) {
    if (name == "run.json") continue;  // the store takes energy reports
    auto answer = upload_report(options.post_url, context.sweep_dir / "jobs" / job.id / name, options.post_key);
    JournalRecord record = journal_record(JournalEvent::uploaded, job.id, previous.attempts + 1);
    record.reports = {name};
    if (!answer) {
      record.reason = answer.error().describe();
      task.upload_errors.push_back(name + ": " + record.reason);
    } else {
      record.http_status = answer->http_status;
      record.reason = answer->message;
      task.uploads.emplace_back(name, *answer);
    }
    if (auto appended = journal->append(record); !appended) return appended.error();
  }
  return task;
}

}  // namespace ecocompute::sweep
