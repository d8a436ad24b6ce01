// One attempt of one job, journalled step by step.
#include "sweep/job_runner.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>

#include <fmt/format.h>

#include "report/energy_report.hpp"
#include "report/run_report.hpp"
#include "sweep/child_process.hpp"
#include "util/clock.hpp"
#include "util/file_io.hpp"

namespace ecocompute::sweep {
namespace {

namespace fs = std::filesystem;

constexpr const char* kLogName = "sweep-measure.log";
constexpr const char* kStatusName = "sweep-status.json";

Result<void> sync_path(const fs::path& path, bool directory) {
  const int fd = ::open(path.c_str(), (directory ? O_RDONLY | O_DIRECTORY : O_RDONLY) | O_CLOEXEC);
  if (fd < 0) return unexpected(ErrorCode::io, "cannot open " + path.string() + " to sync it");
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return unexpected(ErrorCode::io, "cannot sync " + path.string());
  return {};
}

// An existing job folder belongs to an attempt that did not finish: it moves to <id>.attempt-<n>
// with a sweep-status.json saying what became of it, and is never deleted.
Result<void> set_aside(const JobRunContext& context, const Job& job, const fs::path& folder, int attempt,
                       const JobStatus& previous) {
  std::error_code ec;
  if (!fs::exists(folder, ec)) return {};
  const int old_attempt = std::max(previous.attempts, attempt - 1);
  fs::path target = folder.parent_path() / fmt::format("{}.attempt-{}", job.id, old_attempt);
  for (int n = 2; fs::exists(target, ec); ++n) {
    target = folder.parent_path() / fmt::format("{}.attempt-{}.{}", job.id, old_attempt, n);
  }
  const std::string state{previous.state == JobState::failed ? "failed" : "interrupted"};
  const std::string reason = previous.state == JobState::failed && !previous.reason.empty()
                                 ? previous.reason
                                 : "the attempt ended without a done record (its process was killed or the machine stopped)";
  const Json status{{"job", job.id}, {"attempt", old_attempt}, {"state", state}, {"reason", reason},
                    {"set_aside_utc", utc_now()}};
  if (auto written = write_file_atomic(folder / kStatusName, status.dump(2) + "\n"); !written) return written.error();
  fs::rename(folder, target, ec);
  if (ec) return unexpected(ErrorCode::io, fmt::format("cannot move {} aside: {}", folder.string(), ec.message()));
  (void)sync_path(folder.parent_path(), true);
  JournalRecord record = journal_record(JournalEvent::set_aside, job.id, old_attempt);
  record.to = fs::relative(target, context.sweep_dir, ec).string();
  record.reason = state + ": " + reason;
  return context.journal->append(record);
}

std::vector<std::pair<std::string, std::string>> child_environment(const Slot& slot) {
  if (slot.inherit_devices) return {};
  // A GPU worker's child sees only its GPU; a CPU slot's child sees none.
  return {{"CUDA_VISIBLE_DEVICES", slot.gpu_uuid}};
}

std::string describe_exit(const ChildExit& exit, std::string_view step) {
  if (exit.signal != 0) return fmt::format("{} was killed by signal {} ({})", step, exit.signal, ::strsignal(exit.signal));
  return fmt::format("{} exited with code {}", step, exit.exit_code);
}

// Runs one step of the job in a child process to its end and journals its pid (the pid is what `kill`
// needs). The child reads the job from the folder's plan copy: nothing of the design is on its command line.
Result<ChildExit> run_step(const JobRunContext& context, const Job& job, const Slot& slot, int attempt,
                           const JobStepRequest& request, const fs::path& log) {
  auto child = start_child(context.binary, job_step_arguments(request), child_environment(slot), log);
  if (!child) return child.error();
  JournalRecord record = journal_record(JournalEvent::child, job.id, attempt);
  record.step = std::string(to_string(request.step));
  record.pid = child->pid();
  if (auto appended = context.journal->append(record); !appended) {
    ::kill(child->pid(), SIGKILL);
    (void)child->wait();
    return appended.error();
  }
  return wait_child(*child, context.stop);
}

Result<void> record_failure(const JobRunContext& context, const Job& job, int attempt, const fs::path& folder,
                            const std::string& reason, const ChildExit* exit) {
  const Json status{{"job", job.id}, {"attempt", attempt}, {"state", "failed"}, {"reason", reason}};
  (void)write_file_atomic(folder / kStatusName, status.dump(2) + "\n");
  JournalRecord record = journal_record(JournalEvent::failed, job.id, attempt);
  record.reason = reason;
  if (exit != nullptr && exit->signal != 0) record.signal = exit->signal;
  if (exit != nullptr && exit->signal == 0) record.exit_code = exit->exit_code;
  return context.journal->append(record);
}

}  // namespace

JobRunContext make_job_run_context(const SweepPlan& plan, const fs::path& dir, const fs::path& binary, const fs::path& cache_dir,
                                   JournalWriter& journal, const std::atomic<bool>* stop) {
  JobRunContext context;
  context.plan = &plan;
  context.sweep_dir = fs::absolute(dir);
  context.binary = binary;
  context.cache_dir = cache_dir.empty() ? context.sweep_dir / "cache" : cache_dir;
  context.journal = &journal;
  context.stop = stop;
  return context;
}

Result<std::vector<std::string>> complete_reports(const fs::path& folder) {
  auto run_json = read_json_file(folder / "run.json");
  if (!run_json) return Error{ErrorCode::invalid_input, "no complete run.json in " + folder.string(), run_json.error()};
  auto run = report::run_report_from_json(*run_json, (folder / "run.json").string());
  if (!run) return run.error();
  std::vector<std::string> names;
  for (const report::RunCondition& condition : run->conditions) {
    if (!condition.report) continue;
    const fs::path path = folder / *condition.report;
    auto document = read_json_file(path);
    if (!document) return Error{ErrorCode::invalid_input, "run.json names a report that cannot be read", document.error()};
    auto energy = report::energy_report_from_json(*document, path.string());
    if (!energy) return energy.error();
    if (auto synced = sync_path(path, false); !synced) return synced.error();
    names.push_back(*condition.report);
  }
  if (names.empty()) return unexpected(ErrorCode::invalid_input, folder.string() + ": run.json names no report");
  if (auto synced = sync_path(folder / "run.json", false); !synced) return synced.error();
  if (auto synced = sync_path(folder, true); !synced) return synced.error();
  names.emplace_back("run.json");
  return names;
}

Result<JobOutcome> run_job(const JobRunContext& context, const Job& job, const Slot& slot, int attempt,
                           const JobStatus& previous) {
  const JobPaths paths = job_paths(context.sweep_dir, job);
  if (auto aside = set_aside(context, job, paths.folder, attempt, previous); !aside) return aside.error();
  std::error_code ec;
  fs::create_directories(paths.folder, ec);
  if (ec) return unexpected(ErrorCode::io, fmt::format("cannot create {}: {}", paths.folder.string(), ec.message()));

  JournalRecord started = journal_record(JournalEvent::started, job.id, attempt);
  started.slot = slot.name;
  started.host = host_name();
  started.pid = ::getpid();
  if (auto appended = context.journal->append(started); !appended) return appended.error();

  const fs::path log = paths.folder / kLogName;
  JobOutcome outcome;
  JobStepRequest request{context.sweep_dir, job.id, JobStep::synth, context.cache_dir, slot.gpu_uuid};
  if (!job.model.synth_arch.empty() && !fs::exists(paths.model, ec)) {
    // The writer renames a whole file into place: a model file that exists is a whole one.
    auto synth = run_step(context, job, slot, attempt, request, log);
    if (!synth) return synth.error();
    if (synth->signal != 0 || synth->exit_code != 0) {
      outcome.reason = describe_exit(*synth, "synth") + " (see " + log.string() + ")";
      if (auto r = record_failure(context, job, attempt, paths.folder, outcome.reason, &*synth); !r) return r.error();
      return outcome;
    }
  }

  request.step = JobStep::measure;
  auto measured = run_step(context, job, slot, attempt, request, log);
  if (!measured) return measured.error();
  // 0: all written; 4: written, some trials failed (each reason is in run.json). Anything else is not a
  // finished run, whatever files it left.
  if (measured->signal != 0 || (measured->exit_code != 0 && measured->exit_code != 4)) {
    outcome.reason = describe_exit(*measured, "measure") + " (see " + log.string() + ")";
    if (auto r = record_failure(context, job, attempt, paths.folder, outcome.reason, &*measured); !r) return r.error();
    return outcome;
  }
  auto reports = complete_reports(paths.folder);
  if (!reports) {
    outcome.reason = "measure exited but its reports are incomplete: " + reports.error().describe();
    if (auto r = record_failure(context, job, attempt, paths.folder, outcome.reason, &*measured); !r) return r.error();
    return outcome;
  }
  JournalRecord done = journal_record(JournalEvent::done, job.id, attempt);
  done.exit_code = measured->exit_code;
  done.reports = *reports;
  if (auto appended = context.journal->append(done); !appended) return appended.error();
  if (!job.model.synth_arch.empty()) fs::remove(paths.model, ec);  // synthetic weights are big and re-creatable
  outcome.done = true;
  outcome.reports = *reports;
  return outcome;
}

}  // namespace ecocompute::sweep
