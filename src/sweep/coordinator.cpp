// Worker threads over a shared queue of unfinished jobs.
#include "sweep/coordinator.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "experiment/gpu_list.hpp"
#include "util/file_io.hpp"
#include "util/log.hpp"

namespace ecocompute::sweep {
namespace {

namespace fs = std::filesystem;

// Holds an exclusive flock on <dir>/sweep.lock while it lives; the kernel drops it when the process
// dies, kill -9 included, so a stale lock never blocks a resume.
class SweepLock {
 public:
  static Result<SweepLock> acquire(const fs::path& dir) {
    const fs::path path = dir / "sweep.lock";
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) return unexpected(ErrorCode::io, fmt::format("cannot open {}: {}", path.string(), std::strerror(errno)));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      return unexpected(ErrorCode::conflict, fmt::format("another `ecocompute sweep run` is running on {} (it holds {})",
                                                         dir.string(), path.string()));
    }
    const std::string pid = std::to_string(::getpid()) + "\n";
    if (::ftruncate(fd, 0) == 0) (void)!::write(fd, pid.data(), pid.size());
    return SweepLock(fd);
  }
  SweepLock(SweepLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  SweepLock& operator=(SweepLock&&) = delete;
  SweepLock(const SweepLock&) = delete;
  ~SweepLock() {
    if (fd_ >= 0) ::close(fd_);
  }

 private:
  explicit SweepLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

struct Queue {
  std::mutex mutex;
  std::deque<std::pair<Job, JobStatus>> jobs;
  SweepRunSummary summary;
  std::optional<Error> error;  ///< the first of the sweep's own errors; stops every worker
};

void work(const JobRunContext& context, const Slot& slot, Queue& queue) {
  while (true) {
    std::pair<Job, JobStatus> next;
    {
      const std::lock_guard lock(queue.mutex);
      if (queue.jobs.empty() || queue.error || (context.stop != nullptr && context.stop->load())) return;
      next = std::move(queue.jobs.front());
      queue.jobs.pop_front();
    }
    const auto& [job, previous] = next;
    log::info("{}: job {} (attempt {})", slot.name, job.id, previous.attempts + 1);
    auto outcome = run_job(context, job, slot, previous.attempts + 1, previous);
    const std::lock_guard lock(queue.mutex);
    if (!outcome) {
      if (!queue.error) queue.error = outcome.error();
      return;
    }
    if (outcome->done) {
      ++queue.summary.done;
      log::info("{}: job {} done", slot.name, job.id);
    } else {
      ++queue.summary.failed;
      log::warn("{}: job {} failed: {}", slot.name, job.id, outcome->reason);
    }
  }
}

}  // namespace

Result<std::vector<Slot>> plan_slots(const SweepPlan& plan, int cpu_slots) {
  std::vector<Slot> slots;
  if (cpu_slots > 0) {
    for (int i = 0; i < cpu_slots; ++i) slots.push_back(Slot{fmt::format("cpu-{}", i), "", false});
    return slots;
  }
  if (!plan.all_gpus) {
    for (const std::string& uuid : plan.gpus) slots.push_back(Slot{uuid, uuid, false});
    return slots;
  }
  auto uuids = experiment::list_gpu_uuids();
  if (!uuids) {
    return Error{ErrorCode::unavailable, "the plan asks for every GPU (\"gpus\": \"all\"), but they cannot be listed "
                                         "(without a GPU, run CPU slots with --slots N)", uuids.error()};
  }
  for (const std::string& uuid : *uuids) slots.push_back(Slot{uuid, uuid, false});
  if (slots.empty()) return unexpected(ErrorCode::unavailable, "NVML lists no GPU (without a GPU, run CPU slots with --slots N)");
  return slots;
}

Result<void> record_plan(const SweepPlan& plan, const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir / "jobs", ec);
  if (ec) return unexpected(ErrorCode::invalid_argument, fmt::format("cannot create the sweep folder {}: {}", dir.string(), ec.message()));
  const fs::path path = dir / "plan.json";
  const Json wanted = plan_to_json(plan);
  if (fs::exists(path, ec)) {
    auto stored = read_json_file(path);
    if (!stored) return stored.error();
    if (Json::parse(stored->dump()) != wanted) {
      return unexpected(ErrorCode::conflict, fmt::format("{} was started with another plan ({}); use a new folder, or "
                                                         "the same plan to resume", dir.string(), path.string()));
    }
    return {};
  }
  return write_file_atomic(path, wanted.dump(2) + "\n");
}

Result<void> check_model_files(const SweepPlan& plan) {
  for (std::size_t i = 0; i < plan.models.size(); ++i) {
    const PlanModel& model = plan.models[i];
    std::error_code ec;
    if (model.synth_arch.empty() && !fs::is_regular_file(model.path, ec)) {
      return unexpected(ErrorCode::unavailable,
                        fmt::format("model missing: {} (models[{}] of the plan) is not a file", model.path.string(), i));
    }
  }
  return {};
}

Result<SweepRunSummary> run_sweep(const SweepRunOptions& options, const std::atomic<bool>* stop) {
  if (options.slots.empty()) return unexpected(ErrorCode::invalid_argument, "a sweep needs at least one slot");
  if (auto models = check_model_files(options.plan); !models) return models.error();
  if (auto recorded = record_plan(options.plan, options.dir); !recorded) return recorded.error();
  auto lock = SweepLock::acquire(options.dir);
  if (!lock) return lock.error();
  auto journal = JournalWriter::open(options.dir / "journal.jsonl");
  if (!journal) return journal.error();
  auto contents = read_journal(options.dir / "journal.jsonl");
  if (!contents) return contents.error();
  if (contents->unreadable_lines > 0) {
    log::warn("{}: {} unreadable journal line(s) skipped (a write cut short by a crash)", options.dir.string(),
              contents->unreadable_lines);
  }
  auto states = job_states(contents->records, host_name());

  Queue queue;
  const std::vector<Job> jobs = expand_jobs(options.plan);
  queue.summary.jobs = jobs.size();
  for (const Job& job : jobs) {
    const JobStatus status = states.contains(job.id) ? states[job.id] : JobStatus{};
    if (status.state == JobState::done) {
      ++queue.summary.already_done;
      continue;
    }
    queue.jobs.emplace_back(job, status);
  }

  JobRunContext context = make_job_run_context(options.plan, options.dir, options.binary, options.cache_dir, *journal, stop);

  std::vector<std::thread> workers;
  for (const Slot& slot : options.slots) workers.emplace_back([&, slot] { work(context, slot, queue); });
  for (std::thread& worker : workers) worker.join();
  if (queue.error) return *queue.error;
  queue.summary.stopped = !queue.jobs.empty();
  return queue.summary;
}

}  // namespace ecocompute::sweep
