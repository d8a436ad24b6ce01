// The journal's file format and the folding of its records into job states.
#include "sweep/journal.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "util/clock.hpp"

namespace ecocompute::sweep {
namespace {

namespace fs = std::filesystem;

constexpr std::pair<JournalEvent, std::string_view> kEvents[] = {
    {JournalEvent::started, "started"}, {JournalEvent::child, "child"},   {JournalEvent::set_aside, "set_aside"},
    {JournalEvent::done, "done"},       {JournalEvent::failed, "failed"}, {JournalEvent::uploaded, "uploaded"}};

std::optional<JournalEvent> parse_event(std::string_view text) {
  for (const auto& [event, name] : kEvents) {
    if (name == text) return event;
  }
  return std::nullopt;
}

std::optional<JournalRecord> record_from_json(const Json& j) {
  if (!j.is_object() || !j.contains("event") || !j["event"].is_string() || !j.contains("job") || !j["job"].is_string()) {
    return std::nullopt;
  }
  const auto event = parse_event(j["event"].get<std::string>());
  if (!event) return std::nullopt;
  JournalRecord r;
  r.event = *event;
  r.job = j["job"].get<std::string>();
  try {
    r.attempt = j.value("attempt", 0);
    r.time_utc = j.value("time", "");
    r.slot = j.value("slot", "");
    r.host = j.value("host", "");
    r.pid = j.value("pid", 0L);
    r.step = j.value("step", "");
    if (j.contains("exit")) r.exit_code = j["exit"].get<int>();
    if (j.contains("signal")) r.signal = j["signal"].get<int>();
    r.reason = j.value("reason", "");
    r.to = j.value("to", "");
    if (j.contains("reports")) r.reports = j["reports"].get<std::vector<std::string>>();
    if (j.contains("http_status")) r.http_status = j["http_status"].get<int>();
  } catch (const Json::exception&) {
    return std::nullopt;
  }
  return r;
}

bool owner_alive(const JobStatus&, const JournalRecord& started, const std::string& this_host) {
  if (started.host != this_host) return true;  // cannot tell from here: assume it still runs
  if (started.pid <= 0) return false;
  return ::kill(static_cast<pid_t>(started.pid), 0) == 0 || errno == EPERM;
}

}  // namespace

std::string_view to_string(JournalEvent event) noexcept {
  for (const auto& [e, name] : kEvents) {
    if (e == event) return name;
  }
  return "unknown";
}

std::string_view to_string(JobState state) noexcept {
  switch (state) {
    case JobState::pending: return "pending";
    case JobState::running: return "running";
    case JobState::interrupted: return "interrupted";
    case JobState::failed: return "failed";
    case JobState::done: return "done";
  }
  return "unknown";
}

JournalRecord journal_record(JournalEvent event, std::string job, int attempt) {
  JournalRecord r;
  r.event = event;
  r.job = std::move(job);
  r.attempt = attempt;
  return r;
}

Json to_json(const JournalRecord& r) {
  Json j{{"time", r.time_utc}, {"event", to_string(r.event)}, {"job", r.job}, {"attempt", r.attempt}};
  if (!r.slot.empty()) j["slot"] = r.slot;
  if (!r.host.empty()) j["host"] = r.host;
  if (r.pid != 0) j["pid"] = r.pid;
  if (!r.step.empty()) j["step"] = r.step;
  if (r.exit_code) j["exit"] = *r.exit_code;
  if (r.signal) j["signal"] = *r.signal;
  if (!r.reason.empty()) j["reason"] = r.reason;
  if (!r.to.empty()) j["to"] = r.to;
  if (!r.reports.empty()) j["reports"] = r.reports;
  if (r.http_status) j["http_status"] = *r.http_status;
  return j;
}

Result<JournalContents> read_journal(const fs::path& path) {
  JournalContents contents;
  std::error_code ec;
  if (!fs::exists(path, ec)) return contents;
  std::ifstream in(path);
  if (!in) return unexpected(ErrorCode::io, "cannot read the journal " + path.string());
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const Json j = Json::parse(line, nullptr, false);
    auto record = j.is_discarded() ? std::nullopt : record_from_json(j);
    if (!record) {
      ++contents.unreadable_lines;
      continue;
    }
    contents.records.push_back(std::move(*record));
  }
  return contents;
}

Result<JournalWriter> JournalWriter::open(const fs::path& path) {
  std::error_code ec;
  const bool existed = fs::exists(path, ec);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return unexpected(ErrorCode::io, fmt::format("cannot open the journal {}: {}", path.string(), std::strerror(errno)));
  if (!existed) {
    // The new file's name must survive a crash too.
    const int dir = ::open(path.parent_path().empty() ? "." : path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
      ::fsync(dir);
      ::close(dir);
    }
  }
  return JournalWriter(fd, path);
}

JournalWriter::JournalWriter(JournalWriter&& other) noexcept
    : fd_(other.fd_), path_(std::move(other.path_)), mutex_(std::move(other.mutex_)) {
  other.fd_ = -1;
}

JournalWriter::~JournalWriter() {
  if (fd_ >= 0) ::close(fd_);
}

Result<void> JournalWriter::append(JournalRecord record) {
  if (record.time_utc.empty()) record.time_utc = utc_now();
  const std::string line = to_json(record).dump() + "\n";
  const std::lock_guard lock(*mutex_);
  // One write(2) per line: with O_APPEND, lines of several writers never interleave.
  const ssize_t written = ::write(fd_, line.data(), line.size());
  if (written != static_cast<ssize_t>(line.size())) {
    return unexpected(ErrorCode::io, fmt::format("cannot append to the journal {}: {}", path_.string(),
                                                 written < 0 ? std::strerror(errno) : "short write"));
  }
  if (::fsync(fd_) != 0) {
    return unexpected(ErrorCode::io, fmt::format("cannot sync the journal {}: {}", path_.string(), std::strerror(errno)));
  }
  return {};
}

std::map<std::string, JobStatus> job_states(const std::vector<JournalRecord>& records, const std::string& this_host) {
  std::map<std::string, JobStatus> states;
  std::map<std::string, JournalRecord> last_start;
  for (const JournalRecord& r : records) {
    JobStatus& s = states[r.job];
    switch (r.event) {
      case JournalEvent::started:
        // A done job is never started again; a later start would not undo its reports.
        if (s.state == JobState::done) break;
        s.state = JobState::running;
        s.attempts = std::max(s.attempts, r.attempt);
        s.slot = r.slot;
        last_start[r.job] = r;
        break;
      case JournalEvent::done:
        ++s.done_records;
        s.state = JobState::done;
        s.reports = r.reports;
        s.reason.clear();
        break;
      case JournalEvent::failed:
        if (s.state == JobState::done) break;
        s.state = JobState::failed;
        s.reason = r.reason;
        break;
      case JournalEvent::child:
      case JournalEvent::set_aside:
      case JournalEvent::uploaded: break;
    }
  }
  for (auto& [job, s] : states) {
    if (s.state == JobState::running && !owner_alive(s, last_start[job], this_host)) s.state = JobState::interrupted;
  }
  return states;
}

std::string host_name() {
  char name[256] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return "unknown";
  return name;
}

}  // namespace ecocompute::sweep
