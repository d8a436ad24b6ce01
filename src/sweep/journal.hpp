// Journal: the sweep's append-only record (<sweep>/journal.jsonl), one JSON object per line, each
// line written with one write(2) and fsync'ed before the step it records is relied on. It is the
// only truth about which jobs are done: a job is done once its "done" line is on disk, and that line
// is written only after its reports are complete and synced.
#pragma once

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "util/json.hpp"
#include "util/result.hpp"

namespace ecocompute::sweep {

/// What a line records.
enum class JournalEvent {
  started,    ///< an attempt began (owner process pid, host, slot)
  child,      ///< a child process of the attempt was started (step "synth" or "measure", its pid)
  set_aside,  ///< an unfinished attempt's folder was moved aside (to, reason)
  done,       ///< the attempt's reports are complete on disk (reports, exit code)
  failed,     ///< the attempt ended without complete reports (exit code or signal, reason)
  uploaded,   ///< a report was offered to a store (report, status, message)
};

std::string_view to_string(JournalEvent event) noexcept;

struct JournalRecord {
  JournalEvent event = JournalEvent::started;
  std::string job;
  int attempt = 0;
  std::string time_utc;
  std::string slot;                  ///< started: "GPU-…", "cpu-0", "slurm-<array job>_<task>"
  std::string host;                  ///< started
  long pid = 0;                      ///< started: the owner (coordinator or task); child: the child
  std::string step;                  ///< child: "synth" or "measure"
  std::optional<int> exit_code;      ///< done / failed
  std::optional<int> signal;         ///< failed: the signal that ended the child
  std::string reason;                ///< failed / set_aside / uploaded
  std::string to;                    ///< set_aside: the folder's new name
  std::vector<std::string> reports;  ///< done: report file names in the job folder; uploaded: the one
  std::optional<int> http_status;    ///< uploaded
};

Json to_json(const JournalRecord& record);

/// A record of `event` for attempt `attempt` of `job`, the other fields empty.
JournalRecord journal_record(JournalEvent event, std::string job, int attempt);

/// Reads a journal; a line that is not a record (a torn last line after a crash) is skipped and counted.
struct JournalContents {
  std::vector<JournalRecord> records;
  std::size_t unreadable_lines = 0;
};
Result<JournalContents> read_journal(const std::filesystem::path& path);

/// Appends records to a journal file, one write(2) and one fsync(2) each; safe across threads of one
/// process and, through O_APPEND, across processes on a local file system.
class JournalWriter {
 public:
  static Result<JournalWriter> open(const std::filesystem::path& path);
  JournalWriter(JournalWriter&& other) noexcept;
  JournalWriter& operator=(JournalWriter&&) = delete;
  JournalWriter(const JournalWriter&) = delete;
  ~JournalWriter();

  /// Stamps the record's time (when empty) and appends it; returns once it is on disk.
  Result<void> append(JournalRecord record);

 private:
  JournalWriter(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
  int fd_ = -1;
  std::filesystem::path path_;
  std::unique_ptr<std::mutex> mutex_ = std::make_unique<std::mutex>();
};

/// A job's state as the journal tells it.
enum class JobState {
  pending,      ///< never started
  running,      ///< started, no end, and its owner process is alive (or on another host)
  interrupted,  ///< started, no end, and its owner is gone (kill -9, power cut): redone on resume
  failed,       ///< its last attempt failed: redone on resume
  done,         ///< reports complete on disk: never redone
};

std::string_view to_string(JobState state) noexcept;

struct JobStatus {
  JobState state = JobState::pending;
  int attempts = 0;
  std::string slot;                  ///< of the last attempt
  std::string reason;                ///< of the last failure
  std::vector<std::string> reports;  ///< when done
  int done_records = 0;              ///< "done" lines for this job (more than one would be a bug)
};

/// Folds the records into each job's state (keyed by job id). `this_host` decides whether a started
/// attempt's owner pid can be checked for life.
std::map<std::string, JobStatus> job_states(const std::vector<JournalRecord>& records, const std::string& this_host);

/// This machine's host name.
std::string host_name();

}  // namespace ecocompute::sweep
