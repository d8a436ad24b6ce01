// Folding the journal into a status table.
#include "sweep/sweep_status.hpp"

#include <fmt/format.h>

#include "sweep/job.hpp"

namespace ecocompute::sweep {

namespace fs = std::filesystem;

Result<SweepPlan> read_sweep_plan(const fs::path& dir) {
  const fs::path path = dir / "plan.json";
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    return unexpected(ErrorCode::not_found, fmt::format("{} is not a sweep folder (no plan.json)", dir.string()));
  }
  auto document = read_json_file(path);
  if (!document) return document.error();
  return parse_plan(Json::parse(document->dump()), path.string(), dir);
}

Result<SweepStatus> read_status(const fs::path& dir) {
  auto plan = read_sweep_plan(dir);
  if (!plan) return plan.error();
  auto journal = read_journal(dir / "journal.jsonl");
  if (!journal) return journal.error();
  auto states = job_states(journal->records, host_name());
  SweepStatus status;
  status.unreadable_journal_lines = journal->unreadable_lines;
  for (const Job& job : expand_jobs(*plan)) {
    JobRow row{job.id, states.contains(job.id) ? states[job.id] : JobStatus{}};
    if (row.status.state == JobState::pending) {
      ++status.pending;
    } else {
      SlotProgress& slot = status.slots[row.status.slot];
      switch (row.status.state) {
        case JobState::done: ++slot.done; break;
        case JobState::running: ++slot.running; break;
        case JobState::failed: ++slot.failed; break;
        case JobState::interrupted: ++slot.interrupted; break;
        case JobState::pending: break;
      }
    }
    status.jobs.push_back(std::move(row));
  }
  return status;
}

std::size_t unfinished(const SweepStatus& status) {
  std::size_t count = 0;
  for (const JobRow& row : status.jobs) count += row.status.state == JobState::done ? 0 : 1;
  return count;
}

std::string status_text(const SweepStatus& status) {
  std::string out = fmt::format("{:<44} {:>5} {:>8} {:>7} {:>12}\n", "slot", "done", "running", "failed", "interrupted");
  for (const auto& [slot, p] : status.slots) {
    out += fmt::format("{:<44} {:>5} {:>8} {:>7} {:>12}\n", slot, p.done, p.running, p.failed, p.interrupted);
  }
  const std::size_t total = status.jobs.size();
  out += fmt::format("{} job(s): {} done, {} pending (not started)\n", total, total - unfinished(status), status.pending);
  for (const JobRow& row : status.jobs) {
    if (row.status.state == JobState::done || row.status.state == JobState::pending) continue;
    out += fmt::format("  {} {} (attempt {}, {}){}\n", row.id, to_string(row.status.state), row.status.attempts,
                       row.status.slot, row.status.reason.empty() ? "" : ": " + row.status.reason);
  }
  if (status.unreadable_journal_lines > 0) {
    out += fmt::format("{} unreadable journal line(s) skipped\n", status.unreadable_journal_lines);
  }
  return out;
}

Json to_json(const SweepStatus& status) {
  Json slots = Json::object();
  for (const auto& [slot, p] : status.slots) {
    slots[slot] = Json{{"done", p.done}, {"running", p.running}, {"failed", p.failed}, {"interrupted", p.interrupted}};
  }
  Json jobs = Json::array();
  for (const JobRow& row : status.jobs) {
    Json j{{"id", row.id}, {"state", to_string(row.status.state)}, {"attempts", row.status.attempts}};
    if (!row.status.slot.empty()) j["slot"] = row.status.slot;
    if (!row.status.reason.empty()) j["reason"] = row.status.reason;
    if (!row.status.reports.empty()) j["reports"] = row.status.reports;
    jobs.push_back(std::move(j));
  }
  return Json{{"slots", slots}, {"pending", status.pending}, {"jobs", jobs},
              {"unreadable_journal_lines", status.unreadable_journal_lines}};
}

}  // namespace ecocompute::sweep
